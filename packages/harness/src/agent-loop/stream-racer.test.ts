import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AbortHub } from "../context/abort-hub.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { StreamRacer } from "./stream-racer.js";

/** An iterator whose reads never settle (a stalled stream that ignores cancellation). */
function stalled(): AsyncIterator<string> {
  return { next: () => new Promise<IteratorResult<string>>(() => {}) };
}

async function* items(...values: string[]): AsyncGenerator<string> {
  for (const value of values) yield value;
}

/** An iterator whose reads the test settles by hand; counts the reads. */
function manual() {
  const pending: ((result: IteratorResult<string>) => void)[] = [];
  let reads = 0;
  const iterator: AsyncIterator<string> = {
    next: () => {
      reads++;
      return new Promise<IteratorResult<string>>((resolve) => pending.push(resolve));
    },
  };
  const settle = (result: IteratorResult<string>) => pending.shift()?.(result);
  return { iterator, settle, reads: () => reads };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("StreamRacer", () => {
  it("hands every item over in order, then resolves", async () => {
    const hub = new AbortHub();
    const reader = new StreamRacer(items("a", "b", "c"), hub, "while testing");
    const seen: string[] = [];
    await reader.readAll((item) => seen.push(item));
    reader.dispose();
    expect(seen).toEqual(["a", "b", "c"]);
  });

  it("rejects at once when the run aborts during a read that never settles", async () => {
    const hub = new AbortHub();
    const reader = new StreamRacer(stalled(), hub, "while testing");
    const reading = reader.readAll(() => {});
    await tick();
    hub.abort(new TinyAgentsError("cancelled", "stop now"));
    await expect(reading).rejects.toMatchObject({ code: "cancelled", message: "stop now" });
    reader.dispose();
  });

  it("drops the item of a read that settles after the abort and reads no further", async () => {
    const hub = new AbortHub();
    const { iterator, settle, reads } = manual();
    const reader = new StreamRacer(iterator, hub, "while testing");
    const seen: string[] = [];
    const reading = reader.readAll((item) => seen.push(item));
    settle({ value: "a", done: false });
    await tick();
    expect(seen).toEqual(["a"]);
    hub.abort(new TinyAgentsError("cancelled", "stop now"));
    await expect(reading).rejects.toMatchObject({ code: "cancelled" });
    settle({ value: "late", done: false });
    await tick();
    expect(seen).toEqual(["a"]);
    expect(reads()).toBe(2);
    reader.dispose();
  });

  it("reads nothing more once the item handler aborts the run", async () => {
    const hub = new AbortHub();
    let reads = 0;
    const counted: AsyncIterator<string> = {
      next: () => Promise.resolve({ value: String(++reads), done: false }),
    };
    const reader = new StreamRacer(counted, hub, "while testing");
    const seen: string[] = [];
    const reading = reader.readAll((item) => {
      seen.push(item);
      if (item === "3") hub.abort(new TinyAgentsError("cancelled", "enough"));
    });
    await expect(reading).rejects.toMatchObject({ code: "cancelled", message: "enough" });
    await tick();
    expect(seen).toEqual(["1", "2", "3"]);
    expect(reads).toBe(3);
    reader.dispose();
  });

  it("turns a foreign abort reason into a cancelled error naming where", async () => {
    const hub = new AbortHub();
    hub.abort();
    const reader = new StreamRacer(stalled(), hub, "while testing");
    const error = await reader.readAll(() => {}).catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error) && error.code).toBe("cancelled");
    expect(String((error as Error).message)).toContain("while testing");
  });

  it("bounds the whole stream with one timeout on the given clock", async () => {
    const hub = new AbortHub();
    const clock = new DeterministicClock({ autoAdvance: false });
    const { iterator, settle } = manual();
    const reader = new StreamRacer(
      iterator,
      hub,
      "while testing",
      20,
      () => new TinyAgentsError("timeout", "too slow"),
      clock,
    );
    const seen: string[] = [];
    const reading = reader.readAll((item) => seen.push(item));
    let settled = false;
    reading
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    clock.advance(10);
    settle({ value: "a", done: false });
    await tick();
    clock.advance(9);
    await tick();
    expect(settled).toBe(false);
    expect(seen).toEqual(["a"]);
    clock.advance(1);
    await expect(reading).rejects.toMatchObject({ code: "timeout", message: "too slow" });
    reader.dispose();
  });

  it("surfaces the iterator's own error", async () => {
    const hub = new AbortHub();
    const failing: AsyncIterator<string> = { next: () => Promise.reject(new Error("socket closed")) };
    const reader = new StreamRacer(failing, hub, "while testing");
    await expect(reader.readAll(() => {})).rejects.toThrow("socket closed");
    reader.dispose();
  });

  it("surfaces an error the iterator's next() throws instead of returning, after the items before it", async () => {
    const hub = new AbortHub();
    let reads = 0;
    const throwing: AsyncIterator<string> = {
      next: () => {
        reads++;
        if (reads === 2) throw new Error("connection reset");
        return Promise.resolve({ value: "a", done: false });
      },
    };
    const reader = new StreamRacer(throwing, hub, "while testing");
    const seen: string[] = [];
    await expect(reader.readAll((item) => seen.push(item))).rejects.toThrow("connection reset");
    expect(seen).toEqual(["a"]);
    reader.dispose();
  });

  it("reads an iterator whose next() returns plain results, not promises", async () => {
    const hub = new AbortHub();
    const values = ["a", "b"];
    const plain = {
      next: () =>
        values.length > 0
          ? { value: values.shift() as string, done: false as const }
          : { value: undefined, done: true as const },
    } as unknown as AsyncIterator<string>;
    const reader = new StreamRacer(plain, hub, "while testing");
    const seen: string[] = [];
    await reader.readAll((item) => seen.push(item));
    expect(seen).toEqual(["a", "b"]);
    reader.dispose();
  });

  it("surfaces what the item handler throws and reads no further", async () => {
    const hub = new AbortHub();
    const { iterator, settle, reads } = manual();
    const reader = new StreamRacer(iterator, hub, "while testing");
    const reading = reader.readAll(() => {
      throw new Error("bad delta");
    });
    settle({ value: "a", done: false });
    await expect(reading).rejects.toThrow("bad delta");
    expect(reads()).toBe(1);
    reader.dispose();
  });

  it("stops watching the run once disposed", async () => {
    const hub = new AbortHub();
    const { iterator, settle } = manual();
    const reader = new StreamRacer(iterator, hub, "while testing");
    const seen: string[] = [];
    const reading = reader.readAll((item) => seen.push(item));
    reader.dispose();
    hub.abort();
    // Disposed before the abort: the read goes on to the iterator's end, not the abort error.
    settle({ value: "a", done: false });
    await tick();
    settle({ value: undefined, done: true });
    await expect(reading).resolves.toBeUndefined();
    expect(seen).toEqual(["a"]);
  });
});
