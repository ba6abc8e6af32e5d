import { type JsonValue, system, TinyAgentsError, type ToolCall } from "@tinyagents/inference";
import type { RunContext } from "../../contracts/run-context.js";
import type { Middleware } from "../middleware.js";
import { middlewareName, optionError, positive } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { isCount, SavedState } from "./saved-state.js";

/** Options of {@link noProgressMiddleware}. */
export interface NoProgressOptions {
  /** Halt when the same call (tool + arguments) has failed this many times in a run (default 3). */
  maxRepeatedFailures?: number;
  /** Halt when the model asks for the identical batch of calls this many turns in a row (default 3). */
  maxRepeatedBatches?: number;
  /**
   * One step before halting, append a note telling the model to change course (default true);
   * a string replaces the note's text.
   */
  nudge?: boolean | string;
  /** Middleware name (default `"no_progress"`). */
  name?: string;
}

interface RunProgress {
  /** Signature of each call of the current turn, by call id. */
  signatures: Map<string, string>;
  failures: Map<string, { toolName: string; count: number }>;
  lastBatch: string | undefined;
  batchRepeats: number;
  nudged: Set<string>;
}

/**
 * Detects a run going in circles and stops it cleanly:
 * - the same tool call (name + canonical arguments) failing again and again
 *   (`maxRepeatedFailures`; a success of that call resets its count);
 * - the identical batch of calls requested turn after turn (`maxRepeatedBatches`).
 * One repeat before the limit, the next request gets a system note at its end (the volatile tail,
 * `changes: "tail"`) asking the model to change approach: `no_progress.detected { action:
 * "nudge" }`. At the limit, the next model call is not made: `no_progress.detected { action:
 * "halt" }` and a `limit_exceeded` error (`details.limit: "no_progress"`) that says what repeated.
 * What it has seen survives a pause (`saveState` / `restoreState`): failure counts, the last
 * batch and its repeats, the nudges given, and the signatures of the calls pending at the pause.
 * Throws `validation` at construction for limits that are not positive integers.
 */
export function noProgressMiddleware<State = unknown, Ctx = unknown>(
  options: NoProgressOptions = {},
): Middleware<State, Ctx> {
  const name = middlewareName("no_progress", options.name);
  const maxFailures = positive(name, "maxRepeatedFailures", options.maxRepeatedFailures ?? 3, true);
  const maxBatches = positive(name, "maxRepeatedBatches", options.maxRepeatedBatches ?? 3, true);
  const nudge = options.nudge ?? true;
  if (typeof nudge !== "boolean" && (typeof nudge !== "string" || nudge === "")) {
    throw optionError(name, "nudge", "must be a boolean or a non-empty string");
  }
  const progress = new PerRun<RunProgress>(() => ({
    signatures: new Map(),
    failures: new Map(),
    lastBatch: undefined,
    batchRepeats: 0,
    nudged: new Set(),
  }));

  return {
    name,
    changes: "tail",
    beforeModel(ctx, request) {
      const run = progress.of(ctx.run);
      let note: string | undefined;
      let key: string | undefined;
      for (const [signature, failure] of run.failures) {
        const detail = `tool "${failure.toolName}" failed ${failure.count} times with the same arguments`;
        if (failure.count >= maxFailures)
          halt(ctx.run, "repeated_failure", failure.count, detail, maxFailures);
        if (
          nudge !== false &&
          note === undefined &&
          failure.count >= maxFailures - 1 &&
          !run.nudged.has(signature)
        ) {
          key = signature;
          note = `${detail}. Do not call it again with the same arguments: fix the arguments, use another tool, or answer with what you know.`;
          ctx.run.emit({
            type: "no_progress.detected",
            kind: "repeated_failure",
            action: "nudge",
            count: failure.count,
            detail,
          });
        }
      }
      if (run.lastBatch !== undefined) {
        const detail = `the same tool calls were requested ${run.batchRepeats} turns in a row`;
        if (run.batchRepeats >= maxBatches)
          halt(ctx.run, "repeated_batch", run.batchRepeats, detail, maxBatches);
        const batchKey = `batch:${run.lastBatch}`;
        if (
          nudge !== false &&
          note === undefined &&
          run.batchRepeats >= maxBatches - 1 &&
          !run.nudged.has(batchKey)
        ) {
          key = batchKey;
          note = `${detail}, with the same results. Change your approach or give your final answer.`;
          ctx.run.emit({
            type: "no_progress.detected",
            kind: "repeated_batch",
            action: "nudge",
            count: run.batchRepeats,
            detail,
          });
        }
      }
      if (note === undefined || key === undefined) return undefined;
      run.nudged.add(key);
      const text = typeof nudge === "string" ? nudge : `Note: no progress — ${note}`;
      return { ...request, messages: [...request.messages, system(text)] };
    },
    afterModel(ctx, response) {
      const run = progress.of(ctx.run);
      const calls = response.message.toolCalls;
      run.signatures.clear();
      if (calls.length === 0) {
        run.lastBatch = undefined;
        run.batchRepeats = 0;
        return;
      }
      const signatures = calls.map(signatureOf);
      calls.forEach((call, i) => {
        run.signatures.set(call.id, signatures[i] as string);
      });
      const batch = JSON.stringify([...signatures].sort());
      if (batch === run.lastBatch) run.batchRepeats++;
      else {
        run.lastBatch = batch;
        run.batchRepeats = 1;
      }
    },
    afterTool(ctx, result) {
      const run = progress.of(ctx.run);
      const signature = run.signatures.get(result.callId);
      if (signature === undefined) return;
      if (!result.isError) {
        run.failures.delete(signature);
        return;
      }
      const failure = run.failures.get(signature);
      if (failure === undefined) run.failures.set(signature, { toolName: result.toolName, count: 1 });
      else failure.count++;
    },
    saveState(ctx) {
      const run = progress.of(ctx.run);
      const saved: Record<string, JsonValue> = {
        // The calls of the turn the run paused after: their results come after the resume.
        signatures: [...run.signatures],
        failures: [...run.failures].map(([signature, f]) => [signature, f.toolName, f.count]),
        batchRepeats: run.batchRepeats,
        nudged: [...run.nudged],
      };
      if (run.lastBatch !== undefined) saved.lastBatch = run.lastBatch;
      return saved;
    },
    restoreState(ctx, saved) {
      const read = new SavedState(name, saved);
      const run = progress.of(ctx.run);
      run.signatures = new Map(read.tuples("signatures", isPair));
      run.failures = new Map(
        read
          .tuples("failures", isFailure)
          .map(([signature, toolName, count]) => [signature, { toolName, count }]),
      );
      run.lastBatch = read.optionalString("lastBatch");
      run.batchRepeats = read.count("batchRepeats");
      run.nudged = new Set(read.strings("nudged"));
    },
  };
}

function isPair(entry: JsonValue[]): entry is [string, string] {
  return entry.length === 2 && typeof entry[0] === "string" && typeof entry[1] === "string";
}

function isFailure(entry: JsonValue[]): entry is [string, string, number] {
  return (
    entry.length === 3 && typeof entry[0] === "string" && typeof entry[1] === "string" && isCount(entry[2])
  );
}

function halt(
  run: RunContext<unknown>,
  kind: "repeated_failure" | "repeated_batch",
  count: number,
  detail: string,
  limit: number,
): never {
  run.emit({ type: "no_progress.detected", kind, action: "halt", count, detail });
  throw new TinyAgentsError(
    "limit_exceeded",
    `no progress: ${detail} (limit ${limit}); the run was halted before another model call — check the tool's errors, or raise the limit if repeating is expected`,
    { details: { limit: "no_progress", kind, value: limit, count } },
  );
}

/** Tool name + canonical (key-sorted) JSON arguments. */
function signatureOf(call: ToolCall): string {
  return `${call.name}:${canonicalJson(call.arguments)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
