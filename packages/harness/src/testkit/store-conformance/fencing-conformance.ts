import { CheckpointStore } from "../../durability/checkpoint-store.js";
import type { PausedRun } from "../../durability/paused-run.js";
import type { RunLease } from "../../durability/run-lease.js";
import type { TakeRequest } from "../../durability/run-record.js";
import { type ConformanceCase, equal, ok, rejects } from "./conformance-check.js";
import { conformancePausedRun } from "./conformance-paused-run.js";
import type { KeyValueConformanceSubject } from "./key-value-conformance.js";

const LEASE = 1_000;

function request(runId: string, mode: TakeRequest["mode"], ownerId: string, now: number): TakeRequest {
  return { runId, mode, ownerId, leaseMs: LEASE, now };
}

function started(runId: string): TakeRequest {
  return {
    ...request(runId, "start", "a", 0),
    start: { input: [{ role: "user", content: [{ type: "text", text: "hi" }] }], config: { runId } },
  };
}

function checkpointAt(runId: string, step: number): PausedRun {
  return { ...conformancePausedRun(runId), modelCalls: step };
}

/**
 * Fenced run ownership over a KeyValueStore, as runner-agnostic cases (every built-in backend
 * runs them through `claimConformance`): a take (start, recover, resume, reap) is one
 * compare-and-set that bumps the epoch and succeeds only when the run is free; every later write
 * of a lease that lost the run fails with `conflict` and changes nothing; the refusals (existing
 * run id, live lease, finished / paused / child run, run no longer paused) name the run; ending a
 * run keeps its `"once"` intents; a heartbeat writes only the run's small lease key (still
 * fenced by epoch, and it keeps the run live); a finished run leaves the live index and drops its
 * lease key; and of 8 concurrent takers on separate handles exactly one wins.
 */
export function fencingConformance(subject: KeyValueConformanceSubject): ConformanceCase[] {
  const open = async () => new CheckpointStore((await subject.open(Date.now)).store);
  return [
    {
      name: "fencing: start takes a new run at epoch 1 with its input; starting the id again is refused",
      run: async () => {
        const store = await open();
        const lease = await store.take(started("r1"));
        equal([lease.epoch, lease.ownerId], [1, "a"], "the first take");
        const record = await store.record("r1");
        equal([record?.state, record?.epoch, record?.leaseUntil], ["running", 1, LEASE], "the record");
        equal(record?.start?.input.length, 1, "the input is durable from the start");
        await rejects(
          () => store.take(started("r1")),
          "conflict",
          "start again (same owner)",
          /r1.*already exists/,
        );
        await rejects(
          () => store.take({ ...started("r1"), ownerId: "b" }),
          "conflict",
          "start again (another owner)",
          /r1/,
        );
        equal((await store.record("r1"))?.epoch, 1, "refusals change nothing");
      },
    },
    {
      name: "fencing: recover is refused while another owner's lease is live, allowed to its holder and after it lapses",
      run: async () => {
        const store = await open();
        const a = await store.take(started("r2"));
        await a.saveCheckpoint(checkpointAt("r2", 1), 100);
        await rejects(
          () => store.take(request("r2", "recover", "b", 500)),
          "conflict",
          "recover of a live run",
          /r2.*live lease/,
        );
        const again = await store.take(request("r2", "recover", "a", 500));
        equal(again.epoch, 2, "the holder may take it again (epoch bumped)");
        const b = await store.take(request("r2", "recover", "b", 500 + LEASE + 1));
        equal([b.epoch, b.ownerId], [3, "b"], "after the lease lapsed another owner takes it");
        equal(b.taken.checkpoint?.modelCalls, 1, "the taker continues from the last checkpoint");
      },
    },
    {
      name: "fencing: every write of an owner that lost the run fails with conflict and changes nothing",
      run: async () => {
        const store = await open();
        const a = await store.take(started("r3"));
        await a.saveCheckpoint(checkpointAt("r3", 1), 10);
        const b = await store.take(request("r3", "recover", "b", 10 + LEASE + 1));
        await b.saveCheckpoint(checkpointAt("r3", 2), 2_000);
        const before = await store.record("r3");
        const stale: [string, () => Promise<unknown>][] = [
          ["saveCheckpoint", () => a.saveCheckpoint(checkpointAt("r3", 9), 2_100)],
          [
            "recordIntent",
            () => a.recordIntent({ runId: "r3", callId: "c1", toolName: "pay", startedAt: 1 }),
          ],
          ["intent", () => a.intent("r3", "c1")],
          ["renew", () => a.renew(2_100)],
          ["pause", () => a.pause(checkpointAt("r3", 9), 2_100)],
          ["finish", () => a.finish("completed", { stopReason: "completed" }, 2_100)],
        ];
        for (const [what, write] of stale) {
          await rejects(write, "conflict", `stale ${what}`, /r3.*taken from owner "a" \(epoch 1\)/);
        }
        ok(a.lost !== undefined, "the stale lease knows it lost the run");
        equal(await store.record("r3"), before, "the record is exactly the new owner's");
        await b.finish("completed", { stopReason: "completed" }, 2_200);
        equal((await store.record("r3"))?.state, "completed", "the new owner's writes go on");
      },
    },
    {
      name: "fencing: ending a run drops its checkpoint but keeps its once intents; a late recover is refused",
      run: async () => {
        const store = await open();
        const a = await store.take(started("r4"));
        await a.recordIntent({ runId: "r4", callId: "c1", toolName: "pay", startedAt: 5 });
        const result = { callId: "c1", toolName: "pay", content: [{ type: "text" as const, text: "paid" }] };
        await a.recordIntent({ runId: "r4", callId: "c1", toolName: "pay", startedAt: 5, result } as never);
        await a.saveCheckpoint(checkpointAt("r4", 2), 50, true);
        await a.finish("completed", { stopReason: "completed" }, 60);
        const record = await store.record("r4");
        equal(
          [record?.state, record?.checkpoint, record?.final],
          ["completed", undefined, undefined],
          "ended",
        );
        equal(
          (await store.intent("r4", "c1"))?.result,
          result,
          "the once result survives the end of the run",
        );
        await rejects(
          () => store.take(request("r4", "recover", "late", 10_000)),
          "conflict",
          "recover of a completed run",
          /r4.*finished/,
        );
      },
    },
    {
      name: "fencing: refusals name the run and change nothing (unknown, failed, paused, child, not paused)",
      run: async () => {
        const store = await open();
        await rejects(
          () => store.take(request("nope", "recover", "b", 0)),
          "not_found",
          "unknown run",
          /nope/,
        );
        const failed = await store.take(started("failed"));
        await failed.finish("failed", { stopReason: "failed", errorCode: "internal" }, 1);
        await rejects(
          () => store.take(request("failed", "recover", "b", 9_999)),
          "conflict",
          "failed run",
          /failed/,
        );
        const paused = await store.take(started("paused"));
        await paused.pause({ ...conformancePausedRun("paused", "approval") }, 1);
        await rejects(
          () => store.take(request("paused", "recover", "b", 9_999)),
          "conflict",
          "recover of a paused run",
          /paused.*resume it/,
        );
        await store.take({ ...started("child"), parentRunId: "root", rootRunId: "root" });
        await rejects(
          () => store.take(request("child", "recover", "b", 9_999)),
          "conflict",
          "recover of a child run",
          /child.*recover its root run "root"/,
        );
        await rejects(
          () => store.take(request("failed", "resume", "b", 9_999)),
          "conflict",
          "resume of a run that is not paused",
          /failed.*no longer paused/,
        );
        equal((await store.record("paused"))?.epoch, 1, "the paused run is untouched");
      },
    },
    {
      name: "fencing: a pause replaces the checkpoint in one write; exactly one resume takes it",
      run: async () => {
        const store = await open();
        const a = await store.take(started("r5"));
        await a.saveCheckpoint(checkpointAt("r5", 1), 10);
        const paused = conformancePausedRun("r5", "approval");
        await a.pause(paused, 20);
        const record = await store.record("r5");
        equal(
          [record?.state, record?.checkpoint],
          ["paused", paused],
          "paused record in place of the checkpoint",
        );
        const resumed = await store.take(request("r5", "resume", "b", 30));
        equal([resumed.epoch, resumed.taken.checkpoint], [2, paused], "the resumer gets the paused record");
        await rejects(
          () => store.take(request("r5", "resume", "c", 40)),
          "conflict",
          "a second resume",
          /r5.*no longer paused/,
        );
        await rejects(
          () => a.saveCheckpoint(checkpointAt("r5", 9), 50),
          "conflict",
          "the pauser is fenced out",
        );
      },
    },
    {
      name: "fencing: reap refuses a live run, fails an expired one at a new epoch and fences its owner out",
      run: async () => {
        const store = await open();
        const a = await store.take(started("r6"));
        await rejects(
          () => store.take(request("r6", "reap", "reaper", 10)),
          "conflict",
          "reap of a live run",
          /r6/,
        );
        const reaped = await store.take(request("r6", "reap", "reaper", LEASE + 1));
        equal(reaped.epoch, 2, "reap bumps the epoch");
        const record = await store.record("r6");
        equal([record?.state, record?.outcome?.errorCode], ["failed", "abandoned"], "reaped");
        await rejects(() => a.renew(LEASE + 2), "conflict", "the dead owner's renewal");
      },
    },
    {
      name: "fencing: a heartbeat writes only the small lease key, keeps the run live, and is fenced by epoch",
      run: async () => {
        const { store: kv } = await subject.open(Date.now);
        const writes: { namespace: string; bytes: number }[] = [];
        const counting = Object.create(kv) as typeof kv;
        counting.compareAndSet = async (namespace, key, expected, next) => {
          writes.push({ namespace, bytes: JSON.stringify(next ?? null).length });
          return (kv.compareAndSet as NonNullable<typeof kv.compareAndSet>).call(
            kv,
            namespace,
            key,
            expected,
            next,
          );
        };
        counting.put = async (namespace, key, value, options) => {
          writes.push({ namespace, bytes: JSON.stringify(value).length });
          return kv.put(namespace, key, value, options);
        };
        const store = new CheckpointStore(counting);
        const big = "x".repeat(20_000);
        const a = await store.take({
          ...started("hb"),
          start: { input: [{ role: "user", content: [{ type: "text", text: big }] }], config: {} },
        });
        await a.saveCheckpoint(checkpointAt("hb", 1), 100);
        writes.length = 0;
        await a.renew(900);
        await a.renew(1_800);
        ok(writes.length >= 2, "the renewals wrote");
        for (const w of writes) {
          equal(w.namespace, store.leasesNamespace, "a renewal writes the lease key, not the record");
          ok(w.bytes < 200, `a renewal writes a few bytes (wrote ${w.bytes})`);
        }
        equal((await store.record("hb"))?.leaseUntil, 1_800 + LEASE, "the record reads the renewed lease");
        await rejects(
          () => store.take(request("hb", "recover", "b", 100 + LEASE + 1)),
          "conflict",
          "recover past the record's own lease but within the renewed one",
          /hb.*live lease/,
        );
        const b = await store.take(request("hb", "recover", "b", 1_800 + LEASE + 1));
        equal(b.epoch, 2, "after the renewed lease lapsed another owner takes it");
        await rejects(
          () => a.renew(3_000),
          "conflict",
          "the old owner's renewal",
          /hb.*taken from owner "a"/,
        );
        await b.renew(3_000);
        equal((await store.record("hb"))?.leaseUntil, 3_000 + LEASE, "the new owner's renewals count");
      },
    },
    {
      name: "fencing: the live index lists running and paused runs only; a finished run leaves it with its lease key",
      run: async () => {
        const { store: kv } = await subject.open(Date.now);
        const store = new CheckpointStore(kv);
        const ids = async () => (await store.liveRecords(0)).map((r) => r.runId).sort();
        const done = await store.take(started("l-done"));
        await done.renew(10);
        await store.take(started("l-running"));
        const paused = await store.take(started("l-paused"));
        await paused.pause(conformancePausedRun("l-paused", "approval"), 5);
        await store.take(started("l-reaped"));
        equal(await ids(), ["l-done", "l-paused", "l-reaped", "l-running"], "every live run indexed");
        await done.finish("completed", { stopReason: "completed" }, 20);
        await store.take(request("l-reaped", "reap", "reaper", LEASE + 1));
        equal(await ids(), ["l-paused", "l-running"], "finished and reaped runs left the index");
        equal(
          await kv.get(store.leasesNamespace, "l-done"),
          undefined,
          "the finished run's lease key is gone",
        );
        await done.renew(30);
        equal(
          await kv.get(store.leasesNamespace, "l-done"),
          undefined,
          "a late heartbeat leaves no lease key",
        );
        await rejects(
          () => store.take(request("l-done", "recover", "late", 10_000)),
          "conflict",
          "recover of a finished run (its refusal indexes nothing)",
        );
        equal(
          await kv.list(store.liveNamespace),
          ["l-paused", "l-running"],
          "the index holds live runs only",
        );
        // A crash between indexing a run and writing its record leaves an orphan entry: kept for a
        // minute (its take may be in flight), then dropped.
        await kv.put(store.liveNamespace, "l-orphan", { since: 0 });
        equal(await ids(), ["l-paused", "l-running"], "an orphan entry lists no run");
        equal((await kv.list(store.liveNamespace)).includes("l-orphan"), true, "a young orphan entry stays");
        await store.liveRecords(120_000);
        equal(
          (await kv.list(store.liveNamespace)).includes("l-orphan"),
          false,
          "an old orphan entry is dropped",
        );
      },
    },
    {
      name: "fencing: 8 takers on separate handles, x10 (start and recover races): exactly one wins each",
      run: async () => {
        const { store: first, connect } = await subject.open(Date.now);
        const handles = [first];
        for (let i = 1; i < 8; i++) handles.push(connect === undefined ? first : await connect());
        const stores = handles.map((kv) => new CheckpointStore(kv));
        for (let round = 0; round < 10; round++) {
          const runId = `race-${round}`;
          const race = async (take: (s: CheckpointStore, i: number) => Promise<RunLease>) => {
            const outcomes = await Promise.allSettled(stores.map((s, i) => take(s, i)));
            const won = outcomes.filter((o) => o.status === "fulfilled");
            equal(won.length, 1, `round ${round}: winners`);
            for (const o of outcomes) {
              if (o.status === "rejected")
                await rejects(() => Promise.reject(o.reason), "conflict", "a loser", new RegExp(runId));
            }
            return (won[0] as PromiseFulfilledResult<RunLease>).value;
          };
          const starter = await race((s, i) => s.take({ ...started(runId), ownerId: `w${i}` }));
          await starter.saveCheckpoint(checkpointAt(runId, 1), 10);
          const recoverer = await race((s, i) => s.take(request(runId, "recover", `r${i}`, 10 + LEASE + 1)));
          equal(recoverer.epoch, 2, `round ${round}: epochs`);
          await rejects(
            () => starter.saveCheckpoint(checkpointAt(runId, 2), 20),
            "conflict",
            "the dead starter",
          );
        }
      },
    },
  ];
}
