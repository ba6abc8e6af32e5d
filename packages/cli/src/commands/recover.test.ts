/**
 * `tinyagents recover <run-id>` (issue 32): continues a dead durable run of the CLI's store
 * through the front door (`agent.recover`, a fenced take), with the agent rebuilt from the flags
 * its `tinyagents run` recorded; refusals (finished, live owner, unknown, not rebuildable) are
 * one clear line on stderr, exit 1, and execute nothing. Dead runs are made the way a killed
 * `tinyagents run` leaves them: a run record with its flags and a durable record taken at start
 * (the input durable, no checkpoint yet) whose lease ended an hour ago.
 */
import { CheckpointStore } from "@tinyagents/harness";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { openCliStore } from "../core/cli-store.js";

const { cli } = useCli("tinyagents-cli-recover-");

/** The store file of the test home (made by a first command). */
async function dbFile(): Promise<string> {
  const file = /(\S+\.db)/.exec((await cli(["runs", "--stale"])).stdout)?.[1];
  expect(file).toBeDefined();
  return file as string;
}

/** A run as a `tinyagents run` killed in its first model call leaves it (`leaseEndsIn` from now). */
async function deadRun(
  file: string,
  runId: string,
  options: { leaseEndsIn?: number; command?: string; flags?: boolean } = {},
): Promise<void> {
  const store = await openCliStore(file);
  const prompt = "what is 2 + 3?";
  const startedAt = Date.now() - 3_600_000;
  await store.saveRun({
    runId,
    command: options.command ?? "run",
    model: "demo",
    prompt,
    startedAt,
    threadId: null,
    ...(options.flags === false ? {} : { agent: { model: "demo" } }),
  });
  const leaseMs = 30_000;
  await new CheckpointStore(store.keyValue).take({
    runId,
    mode: "start",
    ownerId: "cli-4243",
    leaseMs,
    now: Date.now() + (options.leaseEndsIn ?? -3_600_000) - leaseMs,
    agent: "cli",
    start: {
      input: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      config: { runId, tags: ["cli:run"] },
    },
  });
  await store.close();
}

describe("tinyagents recover", () => {
  it("continues a dead run to completion, then refuses to recover it again", async () => {
    const file = await dbFile();
    await deadRun(file, "run-dead");
    expect((await cli(["runs", "--stale"])).stdout).toContain("run-dead  stale: running (checkpointed)");

    const recovered = await cli(["recover", "run-dead"]);
    expect(recovered.stderr).toBe("");
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toContain("recovered run run-dead");
    // The demo agent's whole run (its add tool included), continued from the durable input.
    expect(recovered.stdout).toContain("The sum is 5.");
    expect(recovered.stdout).toContain("model calls: 2   tool calls: 1");

    const store = await openCliStore(file);
    const record = await new CheckpointStore(store.keyValue).record("run-dead");
    const status = await store.statusStore.get("run-dead");
    await store.close();
    expect(record).toMatchObject({ state: "completed", epoch: 2, outcome: { stopReason: "completed" } });
    expect(record?.ownerId).toMatch(/^cli-\d+$/);
    expect(status).toMatchObject({ status: "completed", modelCalls: 2, toolCalls: 1 });
    expect((await cli(["runs", "--stale"])).stdout).toContain("no stale runs");

    const again = await cli(["recover", "run-dead"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/cannot recover run "run-dead": it has finished.*\[conflict\]/);
  }, 60_000);

  it("refuses a run whose owner holds a live lease, and changes nothing", async () => {
    const file = await dbFile();
    await deadRun(file, "run-live", { leaseEndsIn: 60_000 });
    const refused = await cli(["recover", "run-live"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot recover run "run-live": its owner "cli-4243" holds a live lease/);
    const store = await openCliStore(file);
    const record = await new CheckpointStore(store.keyValue).record("run-live");
    await store.close();
    expect(record).toMatchObject({ state: "running", epoch: 1, ownerId: "cli-4243" });
  }, 60_000);

  it("refuses runs it cannot rebuild or does not know, naming why", async () => {
    const file = await dbFile();
    await deadRun(file, "run-chat", { command: "chat", flags: false });
    const chat = await cli(["recover", "run-chat"]);
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain('cannot recover run "run-chat": it was started by `tinyagents chat`');
    const unknown = await cli(["recover", "run-nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('cannot recover run "run-nope"');
    const usage = await cli(["recover"]);
    expect(usage.code).toBe(2);
  }, 60_000);
});
