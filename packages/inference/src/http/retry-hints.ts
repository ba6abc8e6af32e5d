import { type HeaderSource, parseRetryAfter } from "../errors/retry-after.js";
import { parseGoDuration } from "./go-duration.js";

/**
 * How long to wait before retrying, in milliseconds, from everything a provider may say:
 * 1. `retry-after-ms` / `retry-after` (seconds or HTTP date), via `parseRetryAfter`;
 * 2. OpenAI's `x-ratelimit-reset-requests` / `x-ratelimit-reset-tokens` Go durations
 *    (`"6m0s"`, `"2.01s"`, `"12ms"`): the reset of the limit whose `x-ratelimit-remaining-*`
 *    is `0`, or, when none says so, the longest reset given (waiting too little only earns
 *    another 429);
 * 3. a "try again in 17ms" / "Please retry in 1.5s" / "try again in 6m0s" phrase in the message.
 * Returns `undefined` when nothing usable was given.
 */
export function retryAfterFromHints(
  headers: Headers,
  message: string | undefined,
  nowMs: number,
): number | undefined {
  const direct = parseRetryAfter(headers as HeaderSource, nowMs);
  if (direct !== undefined) return direct;
  const requests = parseGoDuration(headers.get("x-ratelimit-reset-requests"));
  const tokens = parseGoDuration(headers.get("x-ratelimit-reset-tokens"));
  const requestsOut = headers.get("x-ratelimit-remaining-requests")?.trim() === "0";
  const tokensOut = headers.get("x-ratelimit-remaining-tokens")?.trim() === "0";
  const exhausted: number[] = [];
  if (requestsOut && requests !== undefined) exhausted.push(requests);
  if (tokensOut && tokens !== undefined) exhausted.push(tokens);
  if (exhausted.length > 0) return Math.max(...exhausted);
  if (requests !== undefined || tokens !== undefined) return Math.max(requests ?? 0, tokens ?? 0);
  if (message !== undefined) {
    const phrase = /(?:try|retry)(?: again)? in ((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)/i.exec(message);
    if (phrase?.[1] !== undefined) return parseGoDuration(phrase[1]);
    const seconds = /(?:try|retry)(?: again)? (?:in|after) (\d+(?:\.\d+)?) ?seconds?/i.exec(message);
    if (seconds?.[1] !== undefined) return Number.parseFloat(seconds[1]) * 1000;
  }
  return undefined;
}
