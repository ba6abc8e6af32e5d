import type { ArtifactStore } from "@tinyagents/harness";
import type { DurableStepOptions, DurableValue } from "@tinyagents/harness/durability";
import type { ToolResult } from "@tinyagents/harness/tool";
import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";

/**
 * Restate's limits on what one journal entry may hold: the server refuses a message larger than
 * `worker.invoker.message-size-limit` (32 MiB by default in restate-server 1.7, with a warning
 * from 10 MiB), and every step value also travels to the worker on each replay and sits in the
 * final transcript the workflow returns (one more journal entry). This package therefore keeps a
 * step's recorded value far below that: {@link DEFAULT_MAX_STEP_BYTES} unless configured.
 */
export const RESTATE_MESSAGE_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

/** Default cap on one step's journaled value (1 MiB): see {@link RESTATE_MESSAGE_SIZE_LIMIT_BYTES}. */
export const DEFAULT_MAX_STEP_BYTES = 1024 * 1024;

/** The UTF-8 size of `value` as Restate journals it (JSON). */
export function journaledBytes(value: DurableValue): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), "utf8");
}

/**
 * Keep a step's value within `maxBytes`. A tool result (`kind` `tool` or `result`) that is too
 * large goes to `artifacts` when a store is given: its content is stored as one artifact and the
 * journaled result holds a short reference instead (the model sees `[artifact …]`). Anything else
 * too large fails the step with `limit_exceeded`, naming the step, the size and what to do.
 */
export async function fitStepValue<T extends DurableValue>(
  step: string,
  value: T,
  options: DurableStepOptions,
  maxBytes: number,
  artifacts: ArtifactStore | undefined,
): Promise<T> {
  const bytes = journaledBytes(value);
  if (bytes <= maxBytes) return value;
  if (
    artifacts !== undefined &&
    (options.kind === "tool" || options.kind === "result") &&
    isToolResult(value)
  ) {
    return (await offload(value, bytes, artifacts)) as unknown as T;
  }
  throw new TinyAgentsError(
    "limit_exceeded",
    `step "${step}" produced ${bytes} bytes, more than the ${maxBytes}-byte limit of one Restate journal entry ` +
      `(restateAgents maxStepBytes; the server refuses messages over ${RESTATE_MESSAGE_SIZE_LIMIT_BYTES} bytes). ` +
      "Store large outputs as artifacts (give restateAgents an `artifacts` store, or return artifactResult from the tool).",
    { details: { step, kind: options.kind, bytes, maxBytes } },
  );
}

/** Store a tool result's content as an artifact; the result keeps a short reference. */
async function offload(value: ToolResult, bytes: number, artifacts: ArtifactStore): Promise<ToolResult> {
  const ref = await artifacts.put({
    name: `${value.toolName}-${value.callId}.json`,
    content: JSON.stringify(value.content),
    mimeType: "application/json",
    metadata: { callId: value.callId, toolName: value.toolName },
  });
  const { raw: _raw, ...rest } = value;
  return {
    ...rest,
    content: [
      {
        type: "text",
        text: `[artifact ${ref.id}: ${ref.name}, ${ref.mimeType}, ${ref.bytes} bytes] (tool output too large to journal: ${bytes} bytes)`,
      },
    ],
    artifacts: [...(value.artifacts ?? []), ref.id],
  };
}

function isToolResult(value: DurableValue): value is ToolResult & JsonValue {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.callId === "string" && typeof v.toolName === "string" && Array.isArray(v.content);
}
