import {
  type JsonObject,
  type Message,
  type ModelResponse,
  TinyAgentsError,
  text,
} from "@tinyagents/inference";
import type { RunContext } from "../../contracts/run-context.js";
import type { Middleware } from "../middleware.js";
import { middlewareName, optionError } from "./option-checks.js";

/** What a guardrail check sees. */
export interface GuardrailInput<State = unknown> {
  stage: "input" | "output";
  /** The text under check: the latest user message (input) or the model's answer text (output). */
  text: string;
  /** Input stage: the user message checked. */
  message?: Message;
  /** Output stage: the whole response (tool calls included). */
  response?: ModelResponse;
  state: State;
  run: RunContext<unknown>;
}

/** A check's verdict: `tripped` blocks the run; `reason` and `metadata` travel in the error. */
export interface GuardrailVerdict {
  tripped: boolean;
  reason?: string;
  metadata?: JsonObject;
}

/** One named check. Return `undefined` (or `{ tripped: false }`) to let the text through. */
export interface GuardrailCheck<State = unknown> {
  name: string;
  check(input: GuardrailInput<State>): GuardrailVerdict | undefined | Promise<GuardrailVerdict | undefined>;
}

/** Options of {@link guardrailsMiddleware}; at least one check. */
export interface GuardrailsOptions<State = unknown> {
  /** Run on each new user message, before the model sees it. */
  input?: GuardrailCheck<State>[];
  /** Run on every model response, before the loop acts on it. */
  output?: GuardrailCheck<State>[];
  /** Middleware name (default `"guardrails"`). */
  name?: string;
}

/**
 * Input and output guardrails with tripwires. Input checks run in `beforeModel` on the latest user
 * message (each message once); output checks run in `afterModel` on every response. The first
 * check that trips emits `guardrail.tripped` and fails the run with a `guardrail` error whose
 * `details` carry `{ guardrail, stage, reason, metadata }` — before the model is called (input) or
 * before any tool of that response runs (output). Checks run in order; a check that throws fails
 * the run with its own error (wrapped as `middleware`).
 * Throws `validation` at construction when there is no check or a check lacks a name or function.
 */
export function guardrailsMiddleware<State = unknown, Ctx = unknown>(
  options: GuardrailsOptions<State>,
): Middleware<State, Ctx> {
  const name = middlewareName("guardrails", options?.name);
  const input = checks(name, "input", options?.input);
  const output = checks(name, "output", options?.output);
  if (input.length === 0 && output.length === 0) {
    throw optionError(name, "input", "or `output` must hold at least one check: { name, check(input) }");
  }
  const checked = new WeakSet<Message>();

  const run = async (list: GuardrailCheck<State>[], subject: GuardrailInput<State>) => {
    for (const guardrail of list) {
      const verdict = await guardrail.check(subject);
      if (verdict?.tripped !== true) continue;
      const reason = verdict.reason ?? "blocked by policy";
      subject.run.emit({
        type: "guardrail.tripped",
        guardrail: guardrail.name,
        stage: subject.stage,
        reason,
      });
      throw new TinyAgentsError(
        "guardrail",
        `guardrail "${guardrail.name}" tripped on the ${subject.stage}: ${reason}`,
        {
          details: {
            middleware: name,
            guardrail: guardrail.name,
            stage: subject.stage,
            reason,
            ...(verdict.metadata === undefined ? {} : { metadata: verdict.metadata }),
          },
        },
      );
    }
  };

  const middleware: Middleware<State, Ctx> = { name, changes: "metadata" };
  if (input.length > 0) {
    middleware.beforeModel = async (ctx, request) => {
      const message = request.messages.findLast((m) => m.role === "user");
      if (message === undefined || checked.has(message)) return;
      checked.add(message);
      await run(input, { stage: "input", text: text(message), message, state: ctx.state, run: ctx.run });
    };
  }
  if (output.length > 0) {
    middleware.afterModel = async (ctx, response) => {
      await run(output, {
        stage: "output",
        text: text(response.message),
        response,
        state: ctx.state,
        run: ctx.run,
      });
    };
  }
  return middleware;
}

function checks<State>(middleware: string, option: string, value: unknown): GuardrailCheck<State>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw optionError(middleware, option, "must be an array of { name, check } objects");
  value.forEach((item: unknown, i) => {
    const ok =
      typeof item === "object" &&
      item !== null &&
      typeof (item as GuardrailCheck).name === "string" &&
      (item as GuardrailCheck).name !== "" &&
      typeof (item as GuardrailCheck).check === "function";
    if (!ok) throw optionError(middleware, `${option}[${i}]`, "must be { name: string, check(input) }");
  });
  return value as GuardrailCheck<State>[];
}
