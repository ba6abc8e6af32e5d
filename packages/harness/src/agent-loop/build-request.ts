import { type Message, type ModelRequest, system } from "@tinyagents/inference";
import type { LoopSession } from "./loop-session.js";

/**
 * The request for the next model turn: the system prompt (stable prefix), the transcript, the
 * sorted tool schemas (computed once by the registry) and the policy's response format.
 *
 * `messages` is a shallow copy: middleware and models may keep or edit the request without
 * touching the run's transcript. Messages themselves are shared, not cloned.
 */
export function buildRequest<State, Ctx>(s: LoopSession<State, Ctx>): ModelRequest {
  const { parts } = s;
  const messages: Message[] =
    parts.instructions === undefined ? s.transcript.slice() : [system(parts.instructions), ...s.transcript];
  const request: ModelRequest = { messages };
  const tools = parts.tools.schemas();
  if (tools.length > 0) request.tools = tools;
  if (parts.policy.responseFormat !== undefined) request.responseFormat = parts.policy.responseFormat;
  if (s.ctx.config.tags.length > 0) request.tags = s.ctx.config.tags;
  return request;
}
