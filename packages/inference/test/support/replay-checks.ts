/**
 * The failure checks every provider replay test runs (Anthropic, OpenAI Responses, Ollama): a
 * stream cut short, a slow server under `request.timeoutMs`, an abort mid-stream, an HTTP error
 * on both paths. Each adapter's test supplies its model, its request and the fixture bytes; the
 * check enqueues the replay and asserts what every adapter must do. `model` builds an adapter
 * pointed at the replay server (a fresh one per call is fine).
 */
import { expect } from "vitest";
import {
  collectStream,
  type ModelRequest,
  ProviderError,
  type StreamingChatModel,
  TinyAgentsError,
} from "../../src/index.js";
import { drain } from "../providers/parity.js";
import type { ReplayResponse, ReplayServer } from "../replay/replay-server.js";

/**
 * Serve `stream` cut after each of `cuts` bytes, once with a clean end and once with a socket
 * reset: every time, collecting the stream fails with a retryable `ProviderError` (a truncated
 * answer is never returned as whole).
 */
export async function expectCutStreamsRetryable(
  server: ReplayServer,
  model: () => StreamingChatModel,
  request: ModelRequest,
  stream: ReplayResponse,
  cuts: readonly number[],
): Promise<void> {
  for (const cut of cuts) {
    for (const cutMode of ["end", "destroy"] as const) {
      server.enqueue({ ...stream, cutAfterBytes: cut, cutMode });
      const error = await collectStream(model().stream(request)).catch((e: unknown) => e);
      expect(ProviderError.isProviderError(error), `cut ${cut} ${cutMode}`).toBe(true);
      expect((error as ProviderError).retryable, `cut ${cut} ${cutMode}`).toBe(true);
    }
  }
}

/** A unary answer whose headers come 400 ms late fails `invoke` with `timeoutMs: 50` as a `timeout`. */
export async function expectSlowUnaryTimesOut(
  server: ReplayServer,
  model: () => StreamingChatModel,
  request: ModelRequest,
  unary: ReplayResponse,
): Promise<void> {
  server.enqueue({ ...unary, headerDelayMs: 400 });
  const slow = await model()
    .invoke({ ...request, timeoutMs: 50 })
    .catch((e: unknown) => e);
  expect(TinyAgentsError.isInstance(slow, "timeout")).toBe(true);
}

/** A stream whose frames come 200 ms apart fails with `timeoutMs: 100` as a `timeout`. */
export async function expectSlowStreamTimesOut(
  server: ReplayServer,
  model: () => StreamingChatModel,
  request: ModelRequest,
  stream: ReplayResponse,
): Promise<void> {
  server.enqueue({ ...stream, chunking: "frames", delayMs: 200 });
  const cut = await collectStream(model().stream({ ...request, timeoutMs: 100 })).catch((e: unknown) => e);
  expect(TinyAgentsError.isInstance(cut, "timeout")).toBe(true);
}

/**
 * A stream served a frame every 30 ms, aborted at its first text delta: the stream throws a
 * `cancelled` error and yields no second text delta (it stopped reading).
 */
export async function expectAbortStopsStream(
  server: ReplayServer,
  model: () => StreamingChatModel,
  request: ModelRequest,
  stream: ReplayResponse,
): Promise<void> {
  server.enqueue({ ...stream, chunking: "frames", delayMs: 30 });
  const controller = new AbortController();
  let deltas = 0;
  const error = await (async () => {
    for await (const item of model().stream(request, { signal: controller.signal })) {
      if (item.type === "text_delta") {
        deltas++;
        controller.abort();
      }
    }
  })().catch((e: unknown) => e);
  expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
  expect(deltas).toBe(1);
}

/**
 * Serve `unary` to `invoke` and `stream` to `stream` (an HTTP error fixture): both calls fail, and
 * `check` is run on the error `invoke` threw and on the one the stream threw.
 */
export async function expectBothPathsFail(
  server: ReplayServer,
  model: () => StreamingChatModel,
  request: ModelRequest,
  replays: { unary: ReplayResponse; stream: ReplayResponse },
  check: (error: unknown) => void,
): Promise<void> {
  server.enqueue(replays.unary, replays.stream);
  check(
    await model()
      .invoke(request)
      .catch((e: unknown) => e),
  );
  check((await drain(model().stream(request))).error);
}
