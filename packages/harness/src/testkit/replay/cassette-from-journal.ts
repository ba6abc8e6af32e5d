import {
  type ErrorSummary,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  TinyAgentsError,
  type Usage,
} from "@tinyagents/inference";
import type { AgentObservation } from "../../observability/agent-observation.js";
import { Redactor } from "../../observability/redaction.js";
import { withSeparateTraceDetails } from "../../observability/trace-details-records.js";
import { REDIRECT_PREFIX } from "../../steering/steering-command.js";
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteApproval,
  type CassetteModelCall,
  type CassetteRun,
  type CassetteSource,
  type CassetteTolerances,
  type CassetteToolCall,
} from "./cassette.js";
import { recordedRequest } from "./request-view.js";

/** Options of {@link cassetteFromObservations}. */
export interface CassetteBuildOptions {
  source?: CassetteSource;
  tolerances?: Partial<CassetteTolerances>;
  /**
   * How to say which switch records content, when the run journaled none (the CLI names
   * `--no-capture-content`). Default: the library's `traceDetailsMiddleware({ captureContent: true })`.
   */
  captureHint?: string;
}

/** The library's way to record what a cassette needs. */
export const LIBRARY_CAPTURE_HINT =
  "register traceDetailsMiddleware({ captureContent: true }) on the agent (and on each sub-agent's harness) and journal the run with attachObservability";

/** Thrown when a run's journal holds no content to replay: says which switch records it. */
export function contentNotCaptured(runId: string, why: string, hint: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `run ${runId} cannot become a test: ${why}. Record content and run it again: ${hint}`,
    { details: { reason: "content_not_captured", runId } },
  );
}

/** Builds one run's section while its observations stream by. */
class RunSection {
  readonly run: CassetteRun;
  private readonly calls = new Map<string, CassetteModelCall>();
  private readonly tools = new Map<string, CassetteToolCall>();
  private readonly approvals = new Map<string, CassetteApproval>();
  private readonly usage = new Map<string, Usage & JsonObject>();
  /** Model calls started (`model.started`) with no recorded request: trace details were missing. */
  readonly unrecorded = new Set<string>();
  /** Requests recorded without content. */
  contentless = 0;
  /** Sub-agent tool calls started and not yet matched to a child run. */
  private readonly openToolCalls: CassetteToolCall[] = [];

  constructor(runId: string, agent?: string, parentCallId?: string) {
    this.run = { runId, modelCalls: [], toolCalls: [] };
    if (agent !== undefined) this.run.agent = agent;
    if (parentCallId !== undefined) this.run.parentCallId = parentCallId;
  }

  observe(o: AgentObservation): void {
    const e = o.event;
    switch (e.type) {
      case "model.started":
        if (!this.calls.has(e.callId)) this.unrecorded.add(e.callId);
        break;
      case "model.request": {
        this.unrecorded.delete(e.callId);
        if (e.inputMessages === undefined) this.contentless++;
        const call: CassetteModelCall = { callId: e.callId, request: recordedRequest(e) };
        const previous = this.calls.get(e.callId);
        // The same call asked again (a fallback model through the wrap, or after a crash): what
        // failed before stays on record.
        if (previous?.failedAttempts !== undefined) call.failedAttempts = previous.failedAttempts;
        if (previous?.fallback !== undefined) call.fallback = previous.fallback;
        // A recovered run repeats the call it was making when it crashed: the transcript as
        // continued keeps the later request in the earlier one's place.
        if (previous === undefined) this.run.modelCalls.push(call);
        else this.run.modelCalls[this.run.modelCalls.indexOf(previous)] = call;
        this.calls.set(e.callId, call);
        break;
      }
      case "model.response": {
        const call = this.calls.get(e.callId);
        if (call === undefined) break;
        const message = (e.outputMessages?.[0] ?? {}) as JsonObject;
        const parts = Array.isArray(message.parts) ? (message.parts as JsonObject[]) : [];
        call.response = {
          content: parts.filter((p) => p.type !== "tool_call"),
          toolCalls: parts
            .filter((p) => p.type === "tool_call")
            .map((p) => ({ id: String(p.id), name: String(p.name), arguments: p.arguments ?? {} })),
        };
        if (e.finishReason !== undefined) call.response.finishReason = e.finishReason;
        const usage = this.usage.get(e.callId);
        if (usage !== undefined) call.response.usage = usage;
        delete call.error;
        break;
      }
      case "model.completed": {
        const call = this.calls.get(e.callId);
        if (call === undefined) break;
        call.model = e.model;
        // `model.completed` comes from inside the call, before trace details' `model.response`.
        if (e.usage !== undefined) this.usage.set(e.callId, e.usage as Usage & JsonObject);
        break;
      }
      case "model.failed": {
        const call = this.calls.get(e.callId);
        if (call === undefined) break;
        call.failedAttempts ??= [];
        call.failedAttempts.push(e.error as ErrorSummary & JsonObject);
        if (call.response === undefined) call.error = e.error as ErrorSummary & JsonObject;
        break;
      }
      case "fallback.selected": {
        const call = this.calls.get(e.callId);
        if (call !== undefined) call.fallback = { from: e.from, to: e.to };
        break;
      }
      case "tool.started": {
        const call: CassetteToolCall = { callId: e.callId, name: e.toolName, arguments: e.arguments };
        const previous = this.tools.get(e.callId);
        if (previous === undefined) this.run.toolCalls.push(call);
        else this.run.toolCalls[this.run.toolCalls.indexOf(previous)] = call;
        this.tools.set(e.callId, call);
        this.openToolCalls.push(call);
        break;
      }
      case "tool.result": {
        const call = this.tools.get(e.callId);
        if (call === undefined) break;
        if (e.result !== undefined) call.result = e.result;
        call.isError = e.isError;
        break;
      }
      case "tool.completed":
        this.close(e.callId);
        break;
      case "tool.failed": {
        const call = this.tools.get(e.callId);
        if (call !== undefined) call.error = e.error as ErrorSummary & JsonObject;
        this.close(e.callId);
        break;
      }
      case "approval.requested": {
        const approval: CassetteApproval = { callId: e.callId, toolName: e.toolName, decision: "pending" };
        this.approvals.set(e.callId, approval);
        this.run.approvals ??= [];
        this.run.approvals.push(approval);
        break;
      }
      case "steering.applied":
        this.run.steering ??= [];
        // Applied between model call n and n + 1 (n = the calls asked so far).
        this.run.steering.push({
          command: e.command,
          accepted: e.accepted,
          afterModelCall: this.run.modelCalls.length,
        });
        break;
      case "run.completed":
        this.run.outcome = "completed";
        break;
      case "run.failed":
        this.run.outcome = "failed";
        break;
      case "run.interrupted":
        this.run.outcome = "interrupted";
        break;
      default:
        break;
    }
  }

  /** The tool call that started a child run: the oldest still-open call, claimed once. */
  claimChildCall(childRunId: string): string | undefined {
    const call = this.openToolCalls.find((c) => c.childRunId === undefined);
    if (call === undefined) return undefined;
    call.childRunId = childRunId;
    return call.callId;
  }

  private close(callId: string): void {
    const i = this.openToolCalls.findIndex((c) => c.callId === callId);
    if (i >= 0 && this.openToolCalls[i]?.childRunId === undefined) this.openToolCalls.splice(i, 1);
  }

  private steeredMessages(): void {
    steeredMessagesOf(this.run);
  }

  /**
   * After the stream: results the journal holds only in a later request (a call the approval
   * middleware rejected never reaches the tool, so it has no `tool.result`), and the decision of
   * each approval (approved: the tool ran; rejected: its reason, from the rejection result).
   */
  finish(): void {
    const answered = new Map<string, JsonValue>();
    for (const call of this.run.modelCalls) {
      for (const message of call.request.messages) {
        const part = Array.isArray(message.parts) ? message.parts[0] : undefined;
        if (message.role === "tool" && isJsonObject(part) && typeof part.id === "string")
          answered.set(part.id, part.response ?? null);
      }
    }
    for (const call of this.run.toolCalls) {
      if (call.result === undefined && answered.has(call.callId))
        call.result = answered.get(call.callId) ?? null;
    }
    this.steeredMessages();
    for (const approval of this.approvals.values()) {
      const tool = this.tools.get(approval.callId);
      const text = typeof tool?.result === "string" ? tool.result : undefined;
      const rejected = text === undefined ? null : REJECTED.exec(text);
      if (rejected !== null) {
        approval.decision = "reject";
        if (rejected[1] !== undefined && rejected[1] !== "") approval.reason = rejected[1];
      } else if (tool?.result !== undefined) approval.decision = "approve";
    }
  }
}

/**
 * What each accepted `injectMessage` / `redirect` said: the journal records only the command's
 * kind, but the message it appended is in the next request — a message that is neither the
 * model's answer nor a tool result, new since the previous request.
 */
function steeredMessagesOf(run: CassetteRun): void {
  const steering = run.steering ?? [];
  const byCall = new Map<number, JsonObject[]>();
  for (const entry of steering) {
    const after = typeof entry.afterModelCall === "number" ? entry.afterModelCall : 0;
    if (entry.accepted !== true || (entry.command !== "injectMessage" && entry.command !== "redirect"))
      continue;
    if (after < 1) continue;
    const list = byCall.get(after) ?? [];
    list.push(entry);
    byCall.set(after, list);
  }
  for (const [after, entries] of byCall) {
    const previous = run.modelCalls[after - 1]?.request.messages ?? [];
    const next = run.modelCalls[after]?.request.messages ?? [];
    const added = next.slice(previous.length).filter((m) => m.role !== "assistant" && m.role !== "tool");
    entries.forEach((entry, i) => {
      const message = added[i];
      if (message === undefined) return;
      const parts = Array.isArray(message.parts) ? message.parts : [];
      const text =
        isJsonObject(parts[0]) && typeof parts[0].content === "string" ? parts[0].content : undefined;
      if (entry.command === "redirect" && text?.startsWith(REDIRECT_PREFIX) === true)
        entry.instruction = text.slice(REDIRECT_PREFIX.length);
      else if (entry.command === "injectMessage") entry.message = message;
    });
  }
}

/** The error result `humanApprovalMiddleware` answers a rejected call with. */
const REJECTED =
  /^Not executed: a human reviewer rejected this call(?:: ([\s\S]*))?\. Do not repeat it; choose another approach\.$/;

/**
 * A cassette from one run tree's journal (its observations in journal order): each run's model
 * calls with request and response, tool calls with arguments and results, approval decisions,
 * and sub-agent runs nested under the tool call that started them. Values stay as journaled —
 * redacted — and are redacted again with the default rules on the way out. Throws `validation`
 * (details `reason: "content_not_captured"`) when the journal holds no content to replay.
 */
export function cassetteFromObservations(
  rootRunId: string,
  observations: readonly AgentObservation[],
  options: CassetteBuildOptions = {},
): Cassette {
  const hint = options.captureHint ?? LIBRARY_CAPTURE_HINT;
  if (observations.length === 0) {
    throw new TinyAgentsError("validation", `run ${rootRunId} has no journal: nothing to export`, {
      details: { reason: "not_found", runId: rootRunId },
    });
  }
  const sections = new Map<string, RunSection>();
  const root = new RunSection(rootRunId);
  sections.set(rootRunId, root);
  // Trace details folded into a call's records read as the separate records of earlier journals.
  for (const o of withSeparateTraceDetails(observations)) {
    const e = o.event;
    if (e.type === "subagent.started") {
      const parent = sections.get(o.runId);
      const child = new RunSection(e.childRunId, e.name, parent?.claimChildCall(e.childRunId));
      sections.set(e.childRunId, child);
      if (parent !== undefined) {
        parent.run.children ??= [];
        parent.run.children.push(child.run);
      }
      continue;
    }
    sections.get(o.runId)?.observe(o);
  }
  for (const section of sections.values()) matchChildrenByInput(section.run);
  for (const section of sections.values()) {
    const label = section.run.agent === undefined ? "" : ` (sub-agent "${section.run.agent}")`;
    if (section.contentless > 0) {
      throw contentNotCaptured(
        rootRunId,
        `it was journaled without content (run ${section.run.runId}${label} has ${section.contentless} model request(s) without messages)`,
        hint,
      );
    }
    if (section.unrecorded.size > 0) {
      throw contentNotCaptured(
        rootRunId,
        `its journal has no model requests for run ${section.run.runId}${label} (${section.unrecorded.size} model call(s) without trace details)`,
        hint,
      );
    }
    section.finish();
  }
  const tolerances: CassetteTolerances = {
    ignore: options.tolerances?.ignore ?? [],
    mask: options.tolerances?.mask ?? [],
    reexecute: options.tolerances?.reexecute ?? [],
    whatIf: options.tolerances?.whatIf ?? false,
  };
  const cassette: Cassette = {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    runId: rootRunId,
    recordedAt: observations[0]?.ts ?? 0,
    source: (options.source ?? { kind: "library" }) as Cassette["source"],
    input: recordedInput(root.run),
    tolerances,
    run: root.run,
  };
  // Belt and braces: the journal redacted already; a cassette is meant to be committed.
  return new Redactor().redact(cassette as unknown as JsonValue) as unknown as Cassette;
}

/**
 * A sub-agent tool passes its `input` argument as the child's prompt: where exactly one of the
 * parent's sub-agent calls carries the child's prompt, that call started it (the stream order
 * alone is ambiguous when tools run in parallel).
 */
function matchChildrenByInput(parent: CassetteRun): void {
  for (const child of parent.children ?? []) {
    const input = recordedInput(child);
    const matches = parent.toolCalls.filter(
      (c) => isJsonObject(c.arguments) && c.arguments.input === input && c.childRunId !== undefined,
    );
    const match = matches.length === 1 ? matches[0] : undefined;
    const claimedBy = match?.childRunId;
    if (match === undefined || claimedBy === undefined || claimedBy === child.runId) continue;
    const other = parent.toolCalls.find((c) => c.childRunId === child.runId);
    if (other !== undefined) other.childRunId = claimedBy;
    const swapped = (parent.children ?? []).find((c) => c.runId === claimedBy);
    if (swapped !== undefined && other !== undefined) swapped.parentCallId = other.callId;
    match.childRunId = child.runId;
    child.parentCallId = match.callId;
  }
}

/** The run's input: the user messages ending the first request (a prompt when it is one text). */
function recordedInput(run: CassetteRun): string | JsonObject[] {
  const messages = run.modelCalls[0]?.request.messages ?? [];
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role === "user") start--;
  const users = messages.slice(start);
  const only = users.length === 1 ? users[0] : undefined;
  const parts = only !== undefined && Array.isArray(only.parts) ? only.parts : [];
  const part = parts[0];
  if (parts.length === 1 && isJsonObject(part) && part.type === "text" && typeof part.content === "string")
    return part.content;
  return users;
}
