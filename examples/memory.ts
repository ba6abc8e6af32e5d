/**
 * Memory across runs: two runs on one thread id; the second sees the first (history kept in the
 * embedded SQLite store — swap in any AppendLog or KeyValueStore).
 * Run: npx tsx examples/memory.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, StoreChatHistory } from "@tinyagents/harness";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { pickModel } from "./support/pick-model.js";

const dir = mkdtempSync(join(tmpdir(), "tinyagents-memory-"));
const store = SqliteStore.open(join(dir, "agent.db"));
try {
  const { model } = pickModel(
    () =>
      new ScriptedModel([
        "Nice to meet you, Ada!",
        (request) => {
          const earlier = request.messages.find((m) => m.role === "user" && text(m).includes("My name is"));
          return earlier === undefined
            ? "I do not know your name."
            : `Your name is ${/My name is (\w+)/.exec(text(earlier))?.[1]}.`;
        },
      ]),
  );
  const agent = createAgent({
    model,
    instructions: "Remember what the user tells you.",
    memory: { history: new StoreChatHistory({ log: store.appendLog }) },
  });

  const threadId = "user-42";
  const first = await agent.run("My name is Ada.", { threadId });
  console.log(`run 1: ${first.text}`);
  const second = await agent.run("What is my name?", { threadId });
  console.log(`run 2: ${second.text}`);
  console.log(`run 2 started with ${second.inputStart} messages of history from thread ${threadId}`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
