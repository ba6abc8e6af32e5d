/**
 * Issue 17 acceptance: a child process running a journaled, checkpointed agent with a
 * side-effect ledger is SIGKILLed at >= 30 random points and spawned again; each spawn
 * recovers the run it finds checkpointed (`harness.recover`). Every run ends with the
 * transcript of an uninterrupted run (a "once" call cut by a kill answers "outcome unknown"),
 * "once" tools never ran twice, at-least-once tools at most twice with one idempotency key, no
 * journal repeats an offset or id, and nothing reads `running` after `reapStale`.
 * The child imports the built packages (`npm run build`), so a spawn costs no compile.
 * The kill instants (0-59 ms after the worker is ready) and the workers' jitter come from a seeded
 * PRNG: a failure prints its seed, `TINYAGENTS_TEST_SEED=<seed>` replays the schedule (the
 * processes' own timing still varies).
 *
 * Budget: about 17 s on 2 cores at load 15 (30 kills, one worker process at a time; 16 s measured).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentHarness, AppendLogEventJournal, CheckpointStore, tool } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import type { Message } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { seededRandom, testSeed } from "../../../test/support/seeded-random.js";
import { CRASH_SCRIPT } from "./fixtures/crash-script.mjs";
import { expectRecoveredTranscript } from "./support/recovered-transcript.js";

const KILLS = 30;
const RUNS = 80;
const SEED = 17;
const worker = fileURLToPath(new URL("./fixtures/crash-worker.mjs", import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Spawn the worker; resolves with the child once it printed `ready`, or `finished` when it ended. */
function spawnWorker(
  db: string,
  jitterSeed: string,
): Promise<{ child: ChildProcess; finished: Promise<string> }> {
  const child = spawn(process.execPath, [worker, db, String(RUNS)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TINYAGENTS_JITTER_SEED: jitterSeed },
  });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const finished = new Promise<string>((resolve) => {
    child.on("exit", (code, signal) => resolve(`${code ?? signal}:${out.includes("finished")}:${err}`));
  });
  return new Promise((resolve) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) resolve({ child, finished });
    });
    void finished.then(() => resolve({ child, finished }));
  });
}

async function reference(): Promise<Message[]> {
  const h = new AgentHarness<undefined, undefined>();
  h.registerModel("m", new ScriptedModel(CRASH_SCRIPT));
  for (const name of ["work", "pay"]) {
    h.registerTool(
      tool({
        name,
        description: name,
        inputSchema: { type: "object", properties: { n: { type: "number" } } },
        execute: (args) => `${name} ${String(args.n)}`,
      }),
    );
  }
  return (await lowerLayer(h).invoke(undefined, undefined, { runId: "ref" }, "go")).messages;
}

describe("recover after SIGKILL (child process)", () => {
  it(`every run of ${RUNS} completes correctly across ${KILLS} random kills`, {
    timeout: 120_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "tinyagents-crash-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const db = join(dir, "crash.db");
    const seed = testSeed(SEED);
    const random = seededRandom(seed);

    let kills = 0;
    let spawns = 0;
    for (; kills < KILLS && spawns < KILLS * 3; spawns++) {
      const { child, finished } = await spawnWorker(db, `${seed}:${spawns}`);
      if (child.exitCode !== null) break; // it finished every run
      await new Promise((r) => setTimeout(r, Math.floor(random() * 60)));
      if (child.exitCode !== null || !child.kill("SIGKILL")) break;
      await finished;
      kills++;
    }
    // The last spawn finishes whatever is left.
    const last = await spawnWorker(db, `${seed}:last`);
    const ended = await last.finished;
    expect(ended.split(":").slice(0, 2)).toEqual(["0", "true"]);
    expect(kills).toBeGreaterThanOrEqual(KILLS);

    const store = SqliteStore.open(db);
    cleanup.push(() => store.close());
    const want = await reference();
    let unknown = 0;
    for (let i = 0; i < RUNS; i++) {
      const got = (await store.keyValue.get("results", `run-${i}`)) as unknown as Message[] | undefined;
      unknown += expectRecoveredTranscript(got, want, `run-${i}`);
    }

    const ledger = (await store.appendLog.readFrom("ledger", 0, 1_000_000)).map(
      (r) => r.value as { tool: string; key: string },
    );
    const byKey = new Map<string, { tool: string; key: string }[]>();
    for (const entry of ledger) byKey.set(entry.key, [...(byKey.get(entry.key) ?? []), entry]);
    let twice = 0;
    for (const [key, runs] of byKey) {
      if (runs.length === 2) twice++;
      const limit = runs[0]?.tool === "pay" ? 1 : 2;
      expect(runs.length, `executions of ${key}`).toBeLessThanOrEqual(limit);
    }

    const journal = new AppendLogEventJournal(store.appendLog);
    for (let i = 0; i < RUNS; i++) {
      const records = await journal.read(`run-${i}`);
      const offsets = records.map((r) => r.offset);
      expect(new Set(offsets).size, `run-${i} offsets`).toBe(offsets.length);
      expect(new Set(records.map((r) => r.id)).size, `run-${i} ids`).toBe(records.length);
    }
    expect(await new CheckpointStore(store.keyValue).list()).toEqual([]);

    await new Promise((r) => setTimeout(r, 250)); // past the 200 ms leases of the killed owners
    await store.statusStore.reapStale?.({ olderThanMs: 0 });
    const running = (await store.statusStore.list()).filter((s) => s.status === "running");
    expect(running).toEqual([]);
    console.info(
      `crash test: ${kills} kills, ${spawns + 1} spawns, ${unknown} "once" outcomes unknown, ${twice} at-least-once calls run twice`,
    );
  });
});
