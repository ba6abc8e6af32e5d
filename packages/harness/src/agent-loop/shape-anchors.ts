/**
 * The most recent object of each hot class of the loop, kept reachable on purpose.
 *
 * Why: V8 reaches the hidden class ("map") of a class instance — and of any object given
 * properties after it was made — only through its instances; the transition that leads to it
 * is held weakly. When a burst of runs ends and a full collection finds no instance of a class
 * alive, the map is freed, and every optimized function that checked for it is thrown away
 * (`--trace-deopt`: "reason: weak objects"). The next burst then starts in the interpreter and
 * pays for compiling everything again. An idle server meets this after every burst: V8's memory
 * reducer runs full collections when a process goes quiet.
 *
 * Keeping one live instance of each class keeps its map, so optimized code survives. What is
 * kept is the last run's session (its context, abort hub, event sink, limits, status and
 * transcript) and the last model call, model response (the loop adds `resolvedModel` to it, which
 * gives the provider's response objects a new shape too), attempt options, unary provider call,
 * tool phase, tool context, async tool call and the last prefix snapshot of `beforeModel` middleware — at most
 * one finished run's worth of memory, replaced by the next run. Measured with bench W3 (1,000
 * concurrent runs per batch, full collections between batches): without anchors ~30 functions
 * of the loop were deoptimized after every batch; with them, none (see docs/performance.md).
 *
 * The object literal below has every slot from the start, so it never changes shape itself.
 */
export const shapeAnchors: {
  session: object | undefined;
  modelCall: object | undefined;
  /** By number of own keys: a model's responses come in several shapes (optional fields). */
  modelResponses: (object | undefined)[];
  attemptOptions: object | undefined;
  unaryAttempt: object | undefined;
  asyncToolCall: object | undefined;
  toolPhase: object | undefined;
  toolExecution: object | undefined;
  streamRacer: object | undefined;
  prefixSnapshot: object | undefined;
} = {
  session: undefined,
  modelCall: undefined,
  modelResponses: new Array<object | undefined>(16).fill(undefined),
  attemptOptions: undefined,
  unaryAttempt: undefined,
  asyncToolCall: undefined,
  toolPhase: undefined,
  toolExecution: undefined,
  streamRacer: undefined,
  prefixSnapshot: undefined,
};

/**
 * Keep `response` as the anchor of its shape. A model's responses differ in which optional keys
 * they carry (`finishReason`, `usage`, `raw`...), and the loop adds `resolvedModel` to each, so
 * every shape needs its own live instance; the number of own keys tells the usual ones apart.
 */
export function anchorResponse(response: object): void {
  let keys = 0;
  for (const _ in response) keys++;
  shapeAnchors.modelResponses[keys & 15] = response;
}
