import type { AgentEvent, AgentObservation, HarnessEventJournal } from "@tinyagents/harness";
import { usageError } from "./cli-error.js";

/** The environment variable that turns content capture off for `run`, `chat` and `demo`. */
export const CAPTURE_CONTENT_ENV = "TINYAGENTS_CAPTURE_CONTENT";

const OFF = new Set(["0", "false", "off", "no"]);
const ON = new Set(["1", "true", "on", "yes"]);

/**
 * Whether a CLI run journals message content: on by default (the inspector's transcript);
 * `--no-capture-content` turns it off, else `TINYAGENTS_CAPTURE_CONTENT=0` (or false/off/no).
 */
export function captureContentSetting(
  env: Readonly<Record<string, string | undefined>>,
  noCaptureFlag: boolean | undefined,
): boolean {
  if (noCaptureFlag === true) return false;
  const raw = env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase();
  if (raw === undefined || raw === "" || ON.has(raw)) return true;
  if (OFF.has(raw)) return false;
  throw usageError(
    `${CAPTURE_CONTENT_ENV} must be 0 (do not journal prompts, answers, tool arguments and results) or 1 (journal them, the default), got ${JSON.stringify(env[CAPTURE_CONTENT_ENV])}`,
  );
}

/**
 * A journal that stores no content: streamed text and reasoning, tool arguments and progress
 * messages, and (should a middleware add them) the prompt, answer and tool result of trace
 * details are emptied before they are written. What remains is the run's shape: event types,
 * ids, timing (the first delta of a call still marks its first token), usage, cost, tool names,
 * finish reasons, errors and the prompt-cache fingerprints. Reads pass through.
 */
export function contentFreeJournal(journal: HarnessEventJournal): HarnessEventJournal {
  const stripped: HarnessEventJournal = {
    append: (observation) => journal.append(withoutContent(observation)),
    appendMany: (observations) => journal.appendMany(observations.map(withoutContent)),
    read: (rootRunId, query) => journal.read(rootRunId, query),
    replay: (rootRunId, fromOffset, listener) => journal.replay(rootRunId, fromOffset, listener),
    rootRuns: () => journal.rootRuns(),
  };
  const lastOffset = journal.lastOffset?.bind(journal);
  if (lastOffset !== undefined) stripped.lastOffset = lastOffset;
  return stripped;
}

/** `observation` with its event's content fields emptied (the same object when it has none). */
export function withoutContent(observation: AgentObservation): AgentObservation {
  const event = stripEvent(observation.event);
  return event === observation.event ? observation : { ...observation, event };
}

function stripEvent(e: AgentEvent): AgentEvent {
  switch (e.type) {
    case "model.text_delta":
      return { ...e, text: "" };
    case "model.reasoning_delta": {
      const { signature: _signature, ...rest } = e;
      return { ...rest, text: "" };
    }
    case "model.redacted_reasoning":
      return { ...e, data: "" };
    case "model.tool_call_delta": {
      const { argumentsDelta: _arguments, ...rest } = e;
      return rest;
    }
    case "tool.started":
      return { ...e, arguments: {} };
    case "tool.progress": {
      const { data: _data, ...rest } = e;
      return { ...rest, message: "" };
    }
    case "model.started": {
      if (e.details === undefined) return e;
      const { systemInstructions, inputMessages, toolDefinitions, responseFormat, ...details } = e.details;
      const content = [systemInstructions, inputMessages, toolDefinitions, responseFormat];
      return content.every((field) => field === undefined) ? e : { ...e, details };
    }
    case "model.completed":
      return e.details?.outputMessages === undefined
        ? e
        : { ...e, details: withoutKey(e.details, "outputMessages") };
    case "tool.completed":
    case "tool.failed":
      return e.details?.result === undefined ? e : { ...e, details: withoutKey(e.details, "result") };
    case "model.request": {
      const {
        systemInstructions: _s,
        inputMessages: _i,
        toolDefinitions: _t,
        responseFormat: _f,
        ...rest
      } = e;
      return rest;
    }
    case "model.response": {
      const { outputMessages: _o, ...rest } = e;
      return rest;
    }
    case "tool.result": {
      const { result: _r, ...rest } = e;
      return rest;
    }
    default:
      return e;
  }
}

/** A copy of `details` without `key`. */
function withoutKey<T extends object>(details: T, key: keyof T): T {
  const copy = { ...details };
  delete copy[key];
  return copy;
}
