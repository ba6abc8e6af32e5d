import type { ModelRequest } from "@tinyagents/inference";
import { type PrefixBreak, PromptCacheLayout } from "../cache/prompt-cache-layout.js";
import { promptFingerprint } from "../cache/prompt-fingerprint.js";
import type { Middleware } from "../middleware/middleware.js";

/** Thrown by the prompt-prefix assertions; the message says which segment and message differ. */
export class PrefixAssertionError extends Error {
  readonly break: PrefixBreak | undefined;

  constructor(message: string, prefixBreak?: PrefixBreak) {
    super(message);
    this.name = "PrefixAssertionError";
    this.break = prefixBreak;
  }
}

/**
 * Assert that `later` preserves `earlier`'s cacheable prompt prefix: the canonical prefix of
 * `earlier` (tool declarations, then the messages of its cacheable segments) is byte-for-byte
 * the start of `later`'s — identical, or grown only at its end (new turns appended to the
 * history). Equivalently, `later`'s fingerprint cut to `earlier`'s prefix length equals
 * `earlier`'s fingerprint. Also checks that a `promptFingerprint` either request carries is the
 * true fingerprint of its prefix. Throws {@link PrefixAssertionError} naming the first segment
 * (and message) that differs. Returns the two layouts for further checks.
 */
export function expectPrefixPreserved(
  earlier: ModelRequest,
  later: ModelRequest,
): { earlier: PromptCacheLayout; later: PromptCacheLayout } {
  const a = checkedLayout(earlier, "earlier");
  const b = checkedLayout(later, "later");
  const comparison = a.compare(b);
  if (!comparison.preserved) {
    const found = comparison.break;
    throw new PrefixAssertionError(
      `expected the later request to preserve the earlier request's cacheable prefix, but it was busted in ` +
        `segment "${found?.segment}": ${found?.reason}`,
      found,
    );
  }
  const cut = promptFingerprint(later, { maxMessages: a.prefixMessageCount });
  if (cut !== a.fingerprint) {
    throw new PrefixAssertionError(
      `the later request's prefix, cut to the earlier prefix's ${a.prefixMessageCount} message(s), has fingerprint ${cut}, not ${a.fingerprint}`,
    );
  }
  return { earlier: a, later: b };
}

/**
 * Assert that `later` does NOT preserve `earlier`'s cacheable prefix (a provider would have to
 * re-read the prompt from the first differing segment). Returns where it broke; optionally
 * checks that it broke in `segment`. Throws {@link PrefixAssertionError} otherwise.
 */
export function expectPrefixBusted(
  earlier: ModelRequest,
  later: ModelRequest,
  segment?: string,
): PrefixBreak {
  const a = checkedLayout(earlier, "earlier");
  const b = checkedLayout(later, "later");
  const comparison = a.compare(b);
  if (comparison.preserved || comparison.break === undefined) {
    throw new PrefixAssertionError(
      `expected the later request to bust the earlier request's cacheable prefix, but it preserves it ` +
        `(segments ${a.prefixIds().join(", ") || "none"})`,
    );
  }
  if (segment !== undefined && comparison.break.segment !== segment) {
    throw new PrefixAssertionError(
      `expected the prefix to break in segment "${segment}", but it broke in "${comparison.break.segment}": ${comparison.break.reason}`,
      comparison.break,
    );
  }
  return comparison.break;
}

function checkedLayout(request: ModelRequest, which: string): PromptCacheLayout {
  const layout = PromptCacheLayout.fromRequest(request);
  const stated = request.promptFingerprint;
  if (stated !== undefined && stated !== layout.fingerprint) {
    throw new PrefixAssertionError(
      `the ${which} request says promptFingerprint ${stated}, but its cacheable prefix hashes to ${layout.fingerprint} ` +
        "(a middleware edited the prefix without the fingerprint being refreshed?)",
    );
  }
  return layout;
}

/**
 * Records the requests a run sends (register `recorder.middleware()` with `harness.use`, or
 * `record(...)` requests yourself, e.g. a `ScriptedModel`'s `requests`) and checks that each
 * request preserves its predecessor's cacheable prefix — the multi-turn cache contract.
 */
export class PrefixRecorder {
  /** Deep copies of the recorded requests, in order. */
  readonly requests: ModelRequest[] = [];

  /** Record a request (deep-copied, so later edits do not change it). */
  record(request: ModelRequest): this {
    this.requests.push(structuredClone(request));
    return this;
  }

  /**
   * A middleware that records every request as the provider will get it (its `wrapModelCall`
   * sees the request after all `beforeModel` hooks). Declares `changes: "metadata"`: it edits nothing.
   */
  middleware<State = unknown, Ctx = unknown>(): Middleware<State, Ctx> {
    return {
      name: "prefix_recorder",
      changes: "metadata",
      wrapModelCall: (_ctx, request, next) => {
        this.record(request);
        return next(request);
      },
    };
  }

  /** The fingerprints of the recorded requests' cacheable prefixes, in order. */
  fingerprints(): string[] {
    return this.requests.map((r) => PromptCacheLayout.fromRequest(r).fingerprint);
  }

  /**
   * Assert that every recorded request preserves the previous one's prefix (see
   * {@link expectPrefixPreserved}). Throws {@link PrefixAssertionError} naming the first pair
   * (by index) that busted it; requires at least `minRequests` recorded (default 2).
   */
  assertPrefixesPreserved(minRequests = 2): void {
    if (this.requests.length < minRequests) {
      throw new PrefixAssertionError(
        `expected at least ${minRequests} recorded request(s), got ${this.requests.length}; is the recorder registered?`,
      );
    }
    for (let i = 1; i < this.requests.length; i++) {
      try {
        expectPrefixPreserved(this.requests[i - 1] as ModelRequest, this.requests[i] as ModelRequest);
      } catch (error) {
        if (!(error instanceof PrefixAssertionError)) throw error;
        throw new PrefixAssertionError(
          `request ${i} does not preserve request ${i - 1}'s prefix: ${error.message}`,
          error.break,
        );
      }
    }
  }
}
