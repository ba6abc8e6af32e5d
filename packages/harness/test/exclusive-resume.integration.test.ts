/**
 * Issue 17 item 4: claiming a stored PausedRun is exclusive in every backend. Of N concurrent
 * resumers exactly one proceeds; the others get `conflict` naming the run id; the pending
 * tool's side effect runs once. 2 and 8 resumers, 50 rounds each: in-process against memory,
 * file and SQLite (a separate connection per resumer), and across processes against SQLite
 * (fewer rounds there: each round is a real multi-process lock race on a loaded CI machine).
 *
 * Budget: about 15 s on 2 loaded cores (integration tier; 12 s measured at load 21). The
 * in-process rounds take well under a second each. The cross-process races are sent all at once
 * (every process takes the runs in the same order, so each run is still contended by all of
 * them) instead of one round at a time, which waited for the slowest process every round; and
 * the processes load transpile-cached sources (fixtures/ts-loader.mjs). Before: 117 s at load 11.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  AgentHarness,
  InMemoryKeyValueStore,
  type KeyValueStore,
  type PausedRun,
  PausedRunStore,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { FileKeyValueStore } from "@tinyagents/harness/node";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp-dir.js";

/** Runs of the cross-process race (each claimed by all N processes at once). */
const PROCESS_ROUNDS = 5;
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A PausedRun in front of one pending `charge` call (what an approval pause leaves). */
function pausedRun(runId: string): PausedRun {
  return {
    version: 1,
    runId,
    reason: "approval",
    pausedAt: 0,
    config: { runId, maxDepth: 5 } as PausedRun["config"],
    messages: [
      { role: "user", content: [{ type: "text", text: "charge it" }] },
      { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "charge", arguments: {} }] },
    ],
    inputStart: 0,
    pendingToolCalls: [{ id: "c1", name: "charge", arguments: {} }],
    heldMessages: [],
    modelCalls: 1,
    toolCalls: 0,
    usage: {
      calls: 1,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
    cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    steps: [],
    children: [],
    artifacts: [],
  };
}

/** One resumer: claim, then resume with a tool that records its side effect in `ledger`. */
async function resumer(
  store: PausedRunStore,
  runId: string,
  ledger: string[],
): Promise<"won" | TinyAgentsError> {
  const h = new AgentHarness<undefined, undefined>();
  h.registerModel("m", new ScriptedModel(["done"]));
  h.registerTool(
    FakeTool.of("charge", (_args, ctx) => {
      ledger.push(ctx.idempotencyKey ?? "(none)");
      return "charged";
    }),
  );
  try {
    const claimed = await store.claim(runId);
    const run = await lowerLayer(h).resume(undefined, undefined, claimed);
    expect(run.stopReason).toBe("completed");
    return "won";
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) return error;
    throw error;
  }
}

const backends: [string, (n: number) => Promise<KeyValueStore[]>][] = [
  [
    "in memory",
    async (n) => {
      const shared = new InMemoryKeyValueStore();
      return Array.from({ length: n }, () => shared);
    },
  ],
  [
    "files (a store instance per resumer)",
    async (n) => {
      const dir = await tempDir(cleanup, "tinyagents-claim-");
      return Array.from({ length: n }, () => new FileKeyValueStore(dir));
    },
  ],
  [
    "SQLite (a connection per resumer)",
    async (n) => {
      const file = join(await tempDir(cleanup, "tinyagents-claim-"), "claims.db");
      return Array.from({ length: n }, () => {
        const store = SqliteStore.open(file);
        cleanup.push(() => store.close());
        return store.keyValue;
      });
    },
  ],
];

describe.each(backends)("exclusive resume: %s", (_name, open) => {
  for (const n of [2, 8]) {
    it(`${n} concurrent resumers x50: exactly one proceeds, the side effect runs once`, async () => {
      const stores = (await open(n)).map((kv) => new PausedRunStore(kv));
      for (let round = 0; round < 50; round++) {
        const runId = `run-${n}-${round}`;
        await stores[0]?.save(pausedRun(runId));
        const ledger: string[] = [];
        const results = await Promise.all(stores.map((store) => resumer(store, runId, ledger)));
        expect(results.filter((r) => r === "won")).toHaveLength(1);
        const losers = results.filter((r): r is TinyAgentsError => r !== "won");
        expect(losers).toHaveLength(n - 1);
        for (const error of losers) {
          expect(error.code).toBe("conflict");
          expect(error.message).toContain(runId);
          expect(error.details).toMatchObject({ runId });
        }
        expect(ledger).toEqual([`${runId}:c1`]);
      }
    }, 120_000);
  }
});

describe("exclusive resume across processes (SQLite)", () => {
  for (const n of [2, 8]) {
    it(`${n} resumer processes x${PROCESS_ROUNDS} runs at once: one winner per run, one side effect`, async () => {
      const db = join(await tempDir(cleanup, "tinyagents-claim-"), "shared.db");
      const store = SqliteStore.open(db);
      cleanup.push(() => store.close());
      const paused = new PausedRunStore(store.keyValue);
      const children = Array.from({ length: n }, () => {
        const child = spawn(
          process.execPath,
          ["--import", join(fixtures, "register-ts.mjs"), join(fixtures, "resumer.ts"), db],
          { stdio: ["pipe", "pipe", "pipe"] },
        );
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
        cleanup.push(() => {
          child.kill("SIGKILL");
        });
        return { child, lines, stderr: () => stderr };
      });
      const outcomes: Record<string, number> = {};
      const runIds = Array.from({ length: PROCESS_ROUNDS }, (_, round) => `proc-${n}-${round}`);
      for (const runId of runIds) await paused.save(pausedRun(runId));
      for (const c of children) c.child.stdin.write(runIds.map((runId) => `go ${runId}\n`).join(""));
      const answers = (
        await Promise.all(
          children.map(async (c) => {
            const lines: string[] = [];
            for (const _ of runIds) {
              const next = await c.lines.next();
              if (next.done === true) throw new Error(`a resumer exited: ${c.stderr()}`);
              lines.push(next.value);
            }
            return lines;
          }),
        )
      ).flat();
      for (const answer of answers)
        outcomes[answer.split(" ")[0] as string] = (outcomes[answer.split(" ")[0] as string] ?? 0) + 1;
      const ledgerEntries = await store.appendLog.readFrom("ledger", 0, 10_000);
      for (const runId of runIds) {
        expect(answers.filter((a) => a === `won ${runId}`)).toHaveLength(1);
        expect(answers.filter((a) => a === `conflict ${runId}`)).toHaveLength(n - 1);
        const ledger = ledgerEntries.filter((e) => (e.value as { runId: string }).runId === runId);
        expect(ledger.map((e) => (e.value as { key: string }).key)).toEqual([`${runId}:c1`]);
      }
      expect(outcomes).toEqual({ won: PROCESS_ROUNDS, conflict: PROCESS_ROUNDS * (n - 1) });
      for (const c of children) c.child.stdin.end();
    }, 240_000);
  }
});
