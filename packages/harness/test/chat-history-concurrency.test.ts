/**
 * Concurrency: 50 runs on ONE thread through StoreChatHistory, backed by files (JSONL append
 * log, and JSON files through the key-value backend) and by SQLite, lose no message and never
 * interleave one run's messages with another's. A second history instance on the same files
 * stands in for a second process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatHistory, StoreChatHistory } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FileKeyValueStore, JsonlAppendLog } from "@tinyagents/harness/node";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { assistant, type ChatModel, type Message, type ModelRequest } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeHarness } from "./helpers.js";

let dir: string;
const cleanups: (() => unknown)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-concurrency-"));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Answers `echo <last user text>` after yielding, so concurrent runs overlap. */
const echoModel: ChatModel = {
  provider: "test",
  modelId: "echo",
  async invoke(request: ModelRequest) {
    await new Promise((resolve) => setImmediate(resolve));
    const last = [...request.messages].reverse().find((m) => m.role === "user");
    const text = last?.content.map((b) => (b.type === "text" ? b.text : "")).join("") ?? "";
    return { message: assistant(`echo ${text}`), finishReason: "stop" };
  },
};

const textOf = (m: Message) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("");

/** Run 50 agent runs concurrently on thread "t", spread over the given histories. */
async function fiftyRuns(histories: ChatHistory[]): Promise<void> {
  const harnesses = histories.map((history) => {
    const { harness } = makeHarness({ memory: { history } });
    harness.registerModel("echo", echoModel);
    return harness;
  });
  await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      lowerLayer(harnesses[i % harnesses.length]!).invoke(
        undefined,
        undefined,
        { runId: `run-${i}`, threadId: "t" },
        `q${i}`,
      ),
    ),
  );
}

function expectAllPairs(messages: Message[]): void {
  expect(messages).toHaveLength(100);
  const seen = new Set<string>();
  for (let k = 0; k < 100; k += 2) {
    const question = textOf(messages[k] as Message);
    expect(messages[k]?.role).toBe("user");
    expect(messages[k + 1]?.role).toBe("assistant");
    expect(textOf(messages[k + 1] as Message)).toBe(`echo ${question}`);
    seen.add(question);
  }
  expect(seen.size).toBe(50);
}

describe("50 concurrent runs on one thread", () => {
  it("lose nothing through a file-backed (JSONL) history, also from two instances", async () => {
    const a = new JsonlAppendLog(join(dir, "logs"));
    const b = new JsonlAppendLog(join(dir, "logs"));
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    await fiftyRuns([new StoreChatHistory({ log: a }), new StoreChatHistory({ log: b })]);
    const reader = new JsonlAppendLog(join(dir, "logs"));
    cleanups.push(() => reader.close());
    expectAllPairs(await new StoreChatHistory({ log: reader }).load("t"));
  });

  it("lose nothing through a file-backed (JSON key-value) history", async () => {
    const history = new StoreChatHistory({ store: new FileKeyValueStore(join(dir, "kv")) });
    await fiftyRuns([history]);
    expectAllPairs(await new StoreChatHistory({ store: new FileKeyValueStore(join(dir, "kv")) }).load("t"));
  });

  it("lose nothing through a SQLite history, also from two connections", async () => {
    const a = SqliteStore.open(join(dir, "db.sqlite"));
    const b = SqliteStore.open(join(dir, "db.sqlite"));
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    await fiftyRuns([new StoreChatHistory({ log: a.appendLog }), new StoreChatHistory({ log: b.appendLog })]);
    expectAllPairs(await new StoreChatHistory({ log: a.appendLog }).load("t"));
  });

  it("lose nothing with 50 direct concurrent appends per backend", async () => {
    const sqlite = SqliteStore.open(join(dir, "direct.sqlite"));
    const jsonl = new JsonlAppendLog(join(dir, "direct"));
    cleanups.push(
      () => sqlite.close(),
      () => jsonl.close(),
    );
    for (const history of [
      new StoreChatHistory({ log: jsonl }),
      new StoreChatHistory({ store: new FileKeyValueStore(join(dir, "direct-kv")) }),
      new StoreChatHistory({ log: sqlite.appendLog }),
    ]) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          history.append("t", [
            { role: "user", content: [{ type: "text", text: `q${i}` }] },
            assistant(`echo q${i}`),
          ]),
        ),
      );
      expectAllPairs(await history.load("t"));
    }
  });
});
