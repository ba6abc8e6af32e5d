import type { MessageDelta } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runAgent, setup } from "../middleware/library/harness.fixture.js";
import type { Middleware } from "../middleware/middleware.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import { runText } from "./agent-run.js";

/** Holds every text delta and releases them all, upper-cased, when the stream ends. */
function holdAll(log: string[]): Middleware {
  let held = "";
  return {
    name: "hold",
    onModelDelta: (_ctx, delta) => {
      if (delta.type !== "text_delta") return undefined;
      held += delta.text;
      return null;
    },
    onModelStreamEnd: (_ctx, end) => {
      log.push(end.error === undefined ? "end" : `end with ${end.error.code}`);
      const out: MessageDelta[] = held === "" ? [] : [{ type: "text_delta", text: held.toUpperCase() }];
      held = "";
      return out;
    },
  };
}

/** Records the text deltas it sees. */
function seer(name: string, seen: string[]): Middleware {
  return {
    name,
    onModelDelta: (_ctx, delta) => {
      if (delta.type === "text_delta") seen.push(delta.text);
      return undefined;
    },
  };
}

const textDeltas = (ran: Awaited<ReturnType<typeof runAgent>>) =>
  ran.events.ofType("model.text_delta").map((e) => e.text);

describe("onModelStreamEnd", () => {
  it("releases held deltas to consumers and the stored answer, through later middleware only", async () => {
    const { harness } = setup();
    const log: string[] = [];
    const before: string[] = [];
    const after: string[] = [];
    harness
      .registerModel("m", StreamingMock.fromTextChunks(["hel", "lo ", "world"]))
      .use(seer("before", before))
      .use(holdAll(log))
      .use(seer("after", after));
    const ran = await runAgent(harness, "hi", { streaming: true });
    expect(ran.error).toBeUndefined();
    expect(textDeltas(ran)).toEqual(["HELLO WORLD"]);
    expect(runText(ran.run)).toBe("HELLO WORLD");
    expect(log).toEqual(["end"]);
    expect(before).toEqual(["hel", "lo ", "world"]); // registered earlier: saw the originals only
    expect(after).toEqual(["HELLO WORLD"]); // registered later: saw only the release
    const types = ran.events.types();
    expect(types.lastIndexOf("model.text_delta")).toBeLessThan(types.indexOf("model.completed"));
  });

  it("on a failed stream, releases to consumers with the error, and the run still fails", async () => {
    const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
    const log: string[] = [];
    harness
      .registerModel(
        "m",
        new StreamingMock([
          [
            { type: "start" },
            { type: "text_delta", text: "partial " },
            { type: "error", message: "connection reset", retryable: false },
          ],
        ]),
      )
      .use(holdAll(log));
    const ran = await runAgent(harness, "hi", { streaming: true });
    expect(ran.error?.message).toContain("connection reset");
    expect(log).toEqual(["end with provider"]);
    expect(textDeltas(ran)).toEqual(["PARTIAL "]);
  });

  it("is not called for unary runs", async () => {
    const { harness } = setup();
    const log: string[] = [];
    harness.registerModel("m", StreamingMock.fromTextChunks(["a", "b"])).use(holdAll(log));
    const ran = await runAgent(harness, "hi");
    expect(runText(ran.run)).toBe("ab");
    expect(log).toEqual([]);
  });
});
