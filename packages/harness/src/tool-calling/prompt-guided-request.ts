import type { CacheSegment, ModelRequest } from "@tinyagents/inference";
import { coalescePromptToolTurns } from "./coalesce-tool-turns.js";
import { withPromptToolInstructions } from "./prompt-tool-instructions.js";

/**
 * The request a prompt-guided call sends to the wrapped model: earlier tool turns coalesced into
 * text (`coalescePromptToolTurns`), the tool protocol and catalogue added to the system prompt
 * (`withPromptToolInstructions`, honouring `toolChoice`), and `tools`, `toolChoice` and
 * `parallelToolCalls` removed. `cacheSegments` are recounted so they still tile the new message
 * list (an inserted system message joins the first segment; merged messages count in the
 * segment of their first source, and messages are never merged across a segment boundary).
 * Every other field is kept. The input is not mutated.
 */
export function toPromptGuidedRequest(request: ModelRequest): ModelRequest {
  const segments = request.cacheSegments;
  const { messages, origins } = coalescePromptToolTurns(request.messages, segmentStarts(segments));
  const declared = withPromptToolInstructions(messages, request.tools ?? [], request.toolChoice);
  const out: ModelRequest = { ...request, messages: [...declared] };
  delete out.tools;
  delete out.toolChoice;
  delete out.parallelToolCalls;
  if (segments !== undefined) {
    const inserted = declared.length > messages.length;
    out.cacheSegments = recountSegments(segments, inserted ? [0, ...origins] : origins);
  }
  return out;
}

function segmentStarts(segments: readonly CacheSegment[] | undefined): Set<number> {
  const starts = new Set<number>();
  let at = 0;
  for (const segment of segments ?? []) {
    starts.add(at);
    at += segment.messageCount;
  }
  return starts;
}

function recountSegments(segments: readonly CacheSegment[], origins: readonly number[]): CacheSegment[] {
  const counts = segments.map(() => 0);
  const ends: number[] = [];
  let at = 0;
  for (const segment of segments) {
    at += segment.messageCount;
    ends.push(at);
  }
  let s = 0;
  for (const origin of origins) {
    while (s < ends.length && origin >= ends[s]!) s++;
    if (s < counts.length) counts[s]!++;
  }
  return segments.map((segment, i) => ({ ...segment, messageCount: counts[i]! }));
}
