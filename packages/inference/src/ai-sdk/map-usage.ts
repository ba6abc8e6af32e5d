import type { JsonValue } from "../json/json-value.js";
import type { FinishReason } from "../model/model-response.js";
import { usage as makeUsage, type Usage } from "../usage/usage.js";
import { isRecord } from "./reasoning-metadata.js";

/**
 * Normalize AI SDK usage of either specification version to `Usage` (input includes cache
 * reads and writes, output includes reasoning):
 * - v3: `inputTokens.{total, noCache, cacheRead, cacheWrite}`, `outputTokens.{total, text,
 *   reasoning}`; a missing total is the sum of its parts; `raw` is the provider's usage object;
 * - v2: flat `inputTokens`, `outputTokens`, `totalTokens`, `cachedInputTokens` (cache reads),
 *   `reasoningTokens`; cache writes are not part of v2 usage.
 * `undefined` when no count is known.
 */
export function normalizeAiSdkUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const { inputTokens, outputTokens } = value;
  if (isRecord(inputTokens) || isRecord(outputTokens)) {
    const input = isRecord(inputTokens) ? inputTokens : {};
    const output = isRecord(outputTokens) ? outputTokens : {};
    const cacheRead = count(input.cacheRead) ?? 0;
    const cacheWrite = count(input.cacheWrite) ?? 0;
    const inputTotal = count(input.total) ?? sum(count(input.noCache), cacheRead, cacheWrite);
    const reasoning = count(output.reasoning) ?? 0;
    const outputTotal = count(output.total) ?? sum(count(output.text), reasoning);
    if (inputTotal === undefined && outputTotal === undefined) return undefined;
    const parts: Parameters<typeof makeUsage>[0] = {
      inputTokens: inputTotal ?? 0,
      outputTokens: outputTotal ?? 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: reasoning,
    };
    if (isRecord(value.raw)) parts.raw = value.raw as JsonValue;
    return makeUsage(parts);
  }
  const input = count(inputTokens);
  const output = count(outputTokens);
  if (input === undefined && output === undefined) return undefined;
  const total = count(value.totalTokens);
  const parts: Parameters<typeof makeUsage>[0] = {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    cacheReadTokens: count(value.cachedInputTokens) ?? 0,
    reasoningTokens: count(value.reasoningTokens) ?? 0,
  };
  if (total !== undefined && total >= (input ?? 0) + (output ?? 0)) parts.totalTokens = total;
  return makeUsage(parts);
}

/**
 * The neutral finish reason of an AI SDK finish reason (v3 `{unified, raw}` or a v2 string):
 * `content-filter` -> `content_filter`, `tool-calls` -> `tool_calls`, `unknown` -> `other`.
 */
export function mapAiSdkFinishReason(value: unknown): FinishReason {
  const reason = isRecord(value) ? value.unified : value;
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "content-filter":
      return "content_filter";
    case "tool-calls":
      return "tool_calls";
    case "error":
      return "error";
    default:
      return "other";
  }
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function sum(...values: Array<number | undefined>): number | undefined {
  if (values.every((v) => v === undefined)) return undefined;
  return values.reduce<number>((acc, v) => acc + (v ?? 0), 0);
}
