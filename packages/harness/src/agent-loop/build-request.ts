import {
  type CacheSegment,
  type Message,
  type ModelRequest,
  system,
  type ToolSchema,
} from "@tinyagents/inference";
import { defineLazyFingerprint, RunPrefixHasher } from "../cache/run-prefix-hasher.js";
import type { LoopSession } from "./loop-session.js";

/**
 * The request for the next model turn, laid out for provider prompt caching (the
 * `PromptCacheLayout` of the loop): stable segments first, byte-identical across turns, the
 * volatile tail last.
 *
 * | segment    | role       | cacheable | messages                                          |
 * |------------|------------|-----------|---------------------------------------------------|
 * | `system`   | `system`   | yes       | the harness instructions (when set)               |
 * | `tools`    | `tools`    | yes       | none: the sorted tool schemas go to `tools`       |
 * | `history`  | `history`  | yes       | the transcript (it only grows between turns)      |
 * | `volatile` | `volatile` | no        | the `volatileContext` text (when it returns one)  |
 *
 * `cacheSegments` records this layout; `promptFingerprint` (SHA-256 of the canonical cacheable
 * prefix, see `promptFingerprint`) is computed on first read, incrementally — O(messages appended
 * since the last read) — so it costs nothing when no one reads it. The structured-output
 * strategy adds `responseFormat` (native) or a forced final-answer tool (tool strategy).
 *
 * `messages` is a shallow copy: middleware and models may keep or edit the request without
 * touching the run's transcript. Messages themselves are shared, not cloned (treat them as
 * immutable). Per-turn work is one array copy plus a few small objects.
 */
export function buildRequest<State, Ctx>(s: LoopSession<State, Ctx>): ModelRequest {
  const { parts, transcript } = s;
  const instructions = parts.instructions;
  if (instructions !== undefined) s.systemMessage ??= system(instructions);
  const systemMessage = instructions === undefined ? undefined : s.systemMessage;
  const volatile = parts.volatileContext?.(s.state, s.ctx);
  const count = transcript.length;
  const messages: Message[] =
    systemMessage === undefined ? transcript.slice() : [systemMessage].concat(transcript);
  const tools = (parts.structured?.tools ?? parts.tools).schemas();
  const hasVolatile = volatile !== undefined && volatile !== "";
  // Sized once: a push onto `[]` reserves 17 slots, on every model call.
  const cacheSegments = new Array<CacheSegment>(
    (systemMessage === undefined ? 0 : 1) +
      (tools.length > 0 ? 1 : 0) +
      (count > 0 ? 1 : 0) +
      (hasVolatile ? 1 : 0),
  );
  let segment = 0;
  if (systemMessage !== undefined)
    cacheSegments[segment++] = { id: "system", role: "system", cacheable: true, messageCount: 1 };
  if (tools.length > 0)
    cacheSegments[segment++] = { id: "tools", role: "tools", cacheable: true, messageCount: 0 };
  if (count > 0)
    cacheSegments[segment++] = { id: "history", role: "history", cacheable: true, messageCount: count };
  if (hasVolatile) {
    messages.push(system(volatile));
    cacheSegments[segment] = { id: "volatile", role: "volatile", cacheable: false, messageCount: 1 };
  }
  const request: ModelRequest = { messages, cacheSegments };
  if (tools.length > 0) request.tools = tools;
  const structured = parts.structured;
  if (structured !== undefined) {
    if (structured.responseFormat !== undefined) request.responseFormat = structured.responseFormat;
    if (structured.toolChoice !== undefined) request.toolChoice = structured.toolChoice;
  } else if (parts.policy.responseFormat !== undefined) request.responseFormat = parts.policy.responseFormat;
  if (s.ctx.config.tags.length > 0) request.tags = s.ctx.config.tags;
  defineLazyFingerprint(request, fingerprintOf(s, tools, count));
  return request;
}

/**
 * The computation behind a request's lazy `promptFingerprint`: a closure over the session, the
 * tool list and the history length only (the instructions, system message and transcript are the
 * session's), so each request holds a small context.
 */
function fingerprintOf<State, Ctx>(
  s: LoopSession<State, Ctx>,
  tools: readonly ToolSchema[],
  count: number,
): () => string {
  return () => {
    const instructions = s.parts.instructions;
    s.prefixHasher ??= new RunPrefixHasher();
    return s.prefixHasher.fingerprint(
      instructions,
      instructions === undefined ? undefined : s.systemMessage,
      tools.length > 0 ? tools : undefined,
      s.transcript,
      count,
    );
  };
}
