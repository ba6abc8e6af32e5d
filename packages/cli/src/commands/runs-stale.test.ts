/** `tinyagents runs --stale` / `--reap`: find and repair runs whose process died (issue 17 item 1). */
import { CheckpointStore } from "@tinyagents/harness";
import { emptyUsageTotals } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { openCliStore } from "../core/cli-store.js";

const { cli } = useCli("tinyagents-cli-stale-");

describe("tinyagents runs --stale / --reap", () => {
  it("lists a run whose owner stopped heartbeating, reaps it, then finds nothing", async () => {
    expect((await cli(["run", "hello"])).code).toBe(0); // a healthy finished run: never stale
    const dbFile = /(\S+\.db)/.exec((await cli(["runs", "--stale"])).stdout)?.[1];
    expect(dbFile).toBeDefined();
    const store = await openCliStore(dbFile as string);
    const long = Date.now() - 3_600_000;
    await store.statusStore.save({
      runId: "run-crashed",
      rootRunId: "run-crashed",
      component: "agent",
      status: "running",
      phase: "model",
      modelCalls: 1,
      toolCalls: 0,
      activeToolCalls: [],
      usage: emptyUsageTotals(),
      cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      startedAt: long,
      updatedAt: long,
      ownerId: "cli-4242",
      heartbeatAt: long,
      leaseUntil: long + 30_000,
    });
    store.close();

    const stale = await cli(["runs", "--stale"]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain("run-crashed  stale: running  owner cli-4242");
    expect(stale.stdout).toContain("tinyagents runs --reap");
    const reaped = await cli(["runs", "--reap", "--json"]);
    const records = reaped.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      runId: "run-crashed",
      status: "failed",
      error: { code: "abandoned" },
    });
    expect((await cli(["runs", "--stale"])).stdout).toContain("no stale runs");
    expect((await cli(["runs"])).stdout).toMatch(/run-crashed\s+\S+ \S+\s+failed/);
  }, 60_000);

  it("lists a checkpointed run whose durable lease lapsed and reaps it with a fenced take", async () => {
    const dbFile = /(\S+\.db)/.exec((await cli(["runs", "--stale"])).stdout)?.[1];
    const store = await openCliStore(dbFile as string);
    const checkpoints = new CheckpointStore(store.keyValue);
    const long = Date.now() - 3_600_000;
    const dead = await checkpoints.take({
      runId: "run-checkpointed",
      mode: "start",
      ownerId: "cli-4243",
      leaseMs: 30_000,
      now: long,
      start: { input: [], config: { runId: "run-checkpointed" } },
    });
    store.close();

    const stale = await cli(["runs", "--stale"]);
    expect(stale.stdout).toContain("run-checkpointed  stale: running (checkpointed)  owner cli-4243");
    const reaped = await cli(["runs", "--reap"]);
    expect(reaped.stdout).toContain("run-checkpointed  reaped: failed (abandoned)  owner cli-4243");
    const after = await openCliStore(dbFile as string);
    const record = await new CheckpointStore(after.keyValue).record("run-checkpointed");
    after.close();
    expect(record).toMatchObject({ state: "failed", epoch: 2, outcome: { errorCode: "abandoned" } });
    // The dead owner's epoch is behind: had it only been slow, it could write nothing more.
    expect(dead.epoch).toBe(1);
    expect((await cli(["runs", "--stale"])).stdout).toContain("no stale runs");
  }, 60_000);
});
