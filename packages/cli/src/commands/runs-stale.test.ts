/** `tinyagents runs --stale` / `--reap`: find and repair runs whose process died (issue 17 item 1). */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { emptyUsageTotals } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../cli-io.js";
import { openCliStore } from "../cli-store.js";
import { main } from "../main.js";

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tinyagents-cli-stale-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (c: string) => (stdout += c), isTTY: false },
    stderr: { write: (c: string) => (stderr += c) },
    stdin: Readable.from([]),
    env: { TINYAGENTS_HOME: home, HOME: home, OLLAMA_HOST: "127.0.0.1:1" },
    cwd: home,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

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
});
