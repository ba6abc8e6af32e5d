import { CheckpointStore } from "../../durability/checkpoint-store.js";
import { PausedRunStore } from "../../durability/paused-run-store.js";
import { RunLease } from "../../durability/run-lease.js";
import { type ConformanceCase, equal, rejects } from "./conformance-check.js";
import { conformancePausedRun } from "./conformance-paused-run.js";
import { fencingConformance } from "./fencing-conformance.js";
import type { KeyValueConformanceSubject } from "./key-value-conformance.js";

export { conformancePausedRun };

/**
 * Claims over a KeyValueStore, as runner-agnostic cases: fenced run ownership
 * (`fencingConformance`), `CheckpointStore` (save, load, list, intents, delete) and, for
 * checkpoints and paused runs alike, 8 concurrent claimers (one handle
 * each when the backend can `connect`) x 10 rounds: exactly one gets the run, the others a
 * `conflict` naming it. Every built-in key-value backend runs it.
 */
export function claimConformance(subject: KeyValueConformanceSubject): ConformanceCase[] {
  const claimers = async () => {
    const { store, connect } = await subject.open(Date.now);
    const handles = [store];
    for (let i = 1; i < 8; i++) handles.push(connect === undefined ? store : await connect());
    return handles;
  };
  return [
    ...fencingConformance(subject),
    {
      name: "CheckpointStore: save, load, list, intents and delete over the store",
      run: async () => {
        const { store } = await subject.open(Date.now);
        const checkpoints = new CheckpointStore(store);
        await checkpoints.save(conformancePausedRun("r1"));
        await checkpoints.save(conformancePausedRun("r2"));
        equal((await checkpoints.load("r1"))?.runId, "r1", "load");
        equal(await checkpoints.list(), ["r1", "r2"], "list");
        await checkpoints.recordIntent({ runId: "r1", callId: "c1", toolName: "pay", startedAt: 5 });
        equal(
          await checkpoints.intent("r1", "c1"),
          { runId: "r1", callId: "c1", toolName: "pay", startedAt: 5 },
          "intent",
        );
        await checkpoints.delete("r1");
        equal(await checkpoints.load("r1"), undefined, "deleted checkpoint");
        equal(await checkpoints.intent("r1", "c1"), undefined, "its intents are gone too");
        equal(await checkpoints.list(), ["r2"], "list after delete");
      },
    },
    {
      name: "8 concurrent recoverers of one checkpoint x10: exactly one takes it, the others get conflict",
      run: async () => {
        const stores = (await claimers()).map((kv) => new CheckpointStore(kv));
        for (let round = 0; round < 10; round++) {
          const runId = `run-${round}`;
          await stores[0]?.save(conformancePausedRun(runId));
          const outcomes = await Promise.all(
            stores.map((s, i) =>
              s.take({ runId, mode: "recover", ownerId: `w${i}`, leaseMs: 30_000, now: 1_000 }).then(
                (lease) => lease,
                (e: unknown) => e,
              ),
            ),
          );
          const won = outcomes.filter((o) => o instanceof RunLease);
          equal(won.length, 1, `round ${round}: winners`);
          for (const lost of outcomes.filter((o) => !(o instanceof RunLease))) {
            await rejects(
              () => Promise.reject(lost),
              "conflict",
              `round ${round}: a loser`,
              new RegExp(runId),
            );
          }
          const record = await stores[0]?.record(runId);
          equal(record?.epoch, 2, `round ${round}: one take bumped the epoch once`);
          equal(record?.ownerId, (won[0] as RunLease).ownerId, `round ${round}: the winner owns it`);
          equal(await stores[0]?.load(runId), conformancePausedRun(runId), `round ${round}: checkpoint kept`);
        }
      },
    },
    {
      name: "8 concurrent resumers of one paused run x10: exactly one claims it",
      run: async () => {
        const stores = (await claimers()).map((kv) => new PausedRunStore(kv));
        for (let round = 0; round < 10; round++) {
          const runId = `paused-${round}`;
          await stores[0]?.save(conformancePausedRun(runId, "approval"));
          const outcomes = await Promise.all(
            stores.map((s) =>
              s.claim(runId).then(
                () => "won",
                (e: unknown) => e,
              ),
            ),
          );
          equal(outcomes.filter((o) => o === "won").length, 1, `round ${round}: winners`);
          for (const lost of outcomes.filter((o) => o !== "won")) {
            await rejects(
              () => Promise.reject(lost),
              "conflict",
              `round ${round}: a loser`,
              new RegExp(runId),
            );
          }
        }
      },
    },
  ];
}
