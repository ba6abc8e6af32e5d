import type { AgentObservation } from "@tinyagents/harness";
import { withSeparateTraceDetails } from "@tinyagents/harness/observability";
import type { TranscriptEntry } from "./view-types.js";

/** The transcript and whether the journal held message content. */
export interface TranscriptResult {
  entries: TranscriptEntry[];
  contentCaptured: boolean;
}

/**
 * The conversation of a run tree, rebuilt from its journal in order: the input messages (from the
 * first request of each run, when trace details captured content), each answer (the
 * response's output message, else the streamed text), tool calls with their arguments and results,
 * structured output (a JSON answer to a request that asked for a response format), and every error
 * with its code. `prompt` stands in for the input when content was not captured (the CLI records it).
 */
export function buildTranscript(
  observations: readonly AgentObservation[],
  prompt?: string,
): TranscriptResult {
  const entries: TranscriptEntry[] = [];
  const seenInput = new Set<string>();
  const streamed = new Map<string, string>();
  const answered = new Set<string>();
  const wantsFormat = new Set<string>();
  const tools = new Map<string, Extract<TranscriptEntry, { kind: "tool_call" }>>();
  let contentCaptured = false;
  let promptShown = false;
  // Trace details folded into a call's records (current journals) read as the separate records
  // of earlier journals.
  for (const o of withSeparateTraceDetails(observations)) {
    const e = o.event;
    const base = { runId: o.runId, depth: o.depth, offset: o.offset };
    const key = `${o.runId}/${"callId" in e ? e.callId : ""}`;
    switch (e.type) {
      case "run.started":
        if (o.depth === 0 && prompt !== undefined && prompt !== "" && !promptShown) {
          // Replaced below when the first request carries the real input.
          entries.push({ kind: "message", ...base, role: "user", text: prompt });
          promptShown = true;
        }
        break;
      case "model.request": {
        if (typeof e.parameters.responseFormat === "string") wantsFormat.add(o.runId);
        if (e.inputMessages === undefined) break;
        contentCaptured = true;
        if (seenInput.has(o.runId)) break;
        seenInput.add(o.runId);
        if (o.depth === 0 && promptShown) {
          const index = entries.findIndex((x) => x.kind === "message" && x.runId === o.runId);
          if (index >= 0) entries.splice(index, 1);
        }
        const system = partsText(e.systemInstructions ?? []);
        if (system !== "") entries.push({ kind: "message", ...base, role: "system", text: system });
        for (const message of e.inputMessages) {
          const m = asRecord(message);
          const role = typeof m.role === "string" ? m.role : "user";
          if (role === "tool" || role === "assistant") continue;
          entries.push({ kind: "message", ...base, role, text: partsText(m.parts) });
        }
        break;
      }
      case "model.text_delta":
        streamed.set(key, (streamed.get(key) ?? "") + e.text);
        break;
      case "model.response": {
        if (e.outputMessages === undefined) break;
        contentCaptured = true;
        // `model.completed` may come first (streamed text already shown): one answer per call.
        if (answered.has(key)) break;
        const text = e.outputMessages.map((m) => partsText(asRecord(m).parts)).join("\n");
        pushAnswer(entries, base, text, wantsFormat.has(o.runId));
        answered.add(key);
        break;
      }
      case "model.started":
        // A new call or attempt (a resumed run may reuse a call id): its answer is still to come.
        answered.delete(key);
        streamed.delete(key);
        break;
      case "model.completed": {
        const text = streamed.get(key) ?? "";
        // Streamed text is the answer; otherwise `model.response` (which may come next) carries it.
        if (!answered.has(key) && text.trim() !== "") {
          pushAnswer(entries, base, text, wantsFormat.has(o.runId));
          answered.add(key);
        }
        streamed.delete(key);
        break;
      }
      case "model.failed":
        streamed.delete(key);
        entries.push({
          kind: "error",
          ...base,
          where: `model ${e.model} (attempt ${e.attempt})`,
          error: e.error,
        });
        break;
      case "tool.started": {
        const entry: Extract<TranscriptEntry, { kind: "tool_call" }> = {
          kind: "tool_call",
          ...base,
          callId: e.callId,
          toolName: e.toolName,
          arguments: e.arguments,
          status: "running",
        };
        tools.set(key, entry);
        entries.push(entry);
        break;
      }
      case "tool.completed": {
        const entry = tools.get(key);
        if (entry === undefined) break;
        entry.status = e.isError ? "error" : "ok";
        entry.outputBytes = e.outputBytes;
        break;
      }
      case "tool.failed": {
        const entry = tools.get(key);
        if (entry === undefined) break;
        entry.status = "error";
        entry.error = e.error;
        break;
      }
      case "tool.result": {
        const entry = tools.get(key);
        if (entry === undefined || e.result === undefined) break;
        contentCaptured = true;
        entry.result = typeof e.result === "string" ? e.result : JSON.stringify(e.result, null, 2);
        break;
      }
      case "tool.invalid_args":
        entries.push({
          kind: "note",
          ...base,
          text: `tool ${e.toolName}: invalid arguments (${e.error}) → ${e.recovery}`,
        });
        break;
      case "tool.unknown":
        entries.push({ kind: "note", ...base, text: `unknown tool "${e.toolName}" → ${e.recovery}` });
        break;
      case "subagent.started":
        entries.push({ kind: "note", ...base, text: `sub-agent ${e.name} started (run ${e.childRunId})` });
        break;
      case "approval.requested":
        entries.push({
          kind: "note",
          ...base,
          text: `approval requested for ${e.toolName} (${e.approvalId}); the run paused`,
        });
        break;
      case "steering.applied":
        entries.push({
          kind: "note",
          ...base,
          text: `steering: ${e.command}${e.accepted ? "" : " (rejected)"}`,
        });
        break;
      case "structured.reask":
        entries.push({ kind: "note", ...base, text: `structured output re-ask: ${e.issues.join("; ")}` });
        break;
      case "run.interrupted":
        entries.push({ kind: "note", ...base, text: `run interrupted: ${e.reason}` });
        break;
      case "run.failed":
        entries.push({
          kind: "error",
          ...base,
          where: o.depth === 0 ? "run" : "sub-agent run",
          error: e.error,
        });
        break;
      default:
        break;
    }
  }
  return { entries, contentCaptured };
}

function pushAnswer(
  entries: TranscriptEntry[],
  base: { runId: string; depth: number; offset: number },
  text: string,
  structured: boolean,
): void {
  if (text.trim() === "") return;
  if (structured) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null) {
        entries.push({ kind: "structured", ...base, value });
        return;
      }
    } catch {
      // not JSON: shown as text
    }
  }
  entries.push({ kind: "message", ...base, role: "assistant", text });
}

/** The text of GenAI message parts (`{ type: "text", content }`); other parts are named. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .map((part) => {
      const p = asRecord(part);
      if (p.type === "text" || p.type === "reasoning") return typeof p.content === "string" ? p.content : "";
      if (p.type === "tool_call" || p.type === "tool_call_response") return "";
      return `[${String(p.type)}]`;
    })
    .filter((x) => x !== "")
    .join("\n");
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
