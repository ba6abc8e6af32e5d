import type { JsonValue } from "@tinyagents/inference";
import type { KeyValueStore } from "../../store/key-value-store.js";
import { type ConformanceCase, equal, ok, rejects } from "./conformance-check.js";

/** A KeyValueStore under test, with the hooks the suite needs. */
export interface KeyValueConformanceSubject {
  /**
   * A fresh, EMPTY store whose TTLs read `now` (the suite moves that clock). `connect`, when the
   * backend has it, opens another handle on the same storage (another connection, instance or
   * process-like client): the concurrent-claim check then races one handle per claimer.
   */
  open(now: () => number): Promise<{ store: KeyValueStore; connect?: () => Promise<KeyValueStore> }>;
}

type Purging = KeyValueStore & { purgeExpired?: () => number | Promise<number> };

/**
 * The KeyValueStore contract (see `KeyValueStore`), as runner-agnostic cases: copies in and out,
 * exact JSON round trips, namespaces, sorted `list`, TTLs, TTL validation, ordered batches that
 * apply nothing when one operation is invalid, `take` — of 8 concurrent takers of one key
 * exactly one gets the value — and `compareAndSet` — of 8 concurrent setters over one value
 * exactly one wins (each skipped only for a store without the optional method). Every built-in backend
 * runs it (memory, files, SQLite, Postgres):
 * `for (const c of keyValueStoreConformance(subject)) it(c.name, c.run)`.
 */
export function keyValueStoreConformance(subject: KeyValueConformanceSubject): ConformanceCase[] {
  const cases: ConformanceCase[] = [
    {
      name: "get/put/delete/list, and values are copied in and out",
      run: async () => {
        const { store } = await subject.open(Date.now);
        const value = { a: [1, 2] };
        await store.put("ns", "k", value);
        value.a.push(3);
        const read = (await store.get("ns", "k")) as { a: number[] };
        equal(read, { a: [1, 2] }, "get after the caller mutated its value");
        read.a.push(9);
        equal(await store.get("ns", "k"), { a: [1, 2] }, "get after mutating a returned value");
        await store.put("ns", "b", 1);
        equal(await store.list("ns"), ["b", "k"], "list");
        await store.put("ns", "b", { replaced: true });
        equal(await store.get("ns", "b"), { replaced: true }, "put replaces");
        equal(await store.delete("ns", "k"), true, "delete of a live key");
        equal(await store.delete("ns", "k"), false, "second delete");
        equal(await store.get("ns", "k"), undefined, "get after delete");
        equal(await store.list("other"), [], "list of an empty namespace");
      },
    },
    {
      name: "round-trips JSON values exactly and keeps namespaces apart",
      run: async () => {
        const { store } = await subject.open(Date.now);
        const values: JsonValue[] = [
          null,
          true,
          0,
          -1.5,
          1e21,
          "",
          'héllo \u2028 😀 "quoted" \\ \n',
          [],
          {},
          { nested: { deep: [1, { x: null }], empty: "" } },
          "x".repeat(100_000),
        ];
        for (const [i, value] of values.entries()) await store.put("values", `v${i}`, value);
        for (const [i, value] of values.entries())
          equal(await store.get("values", `v${i}`), value, `value ${i}`);
        for (const key of ["run-1:call_2", "é", "with space", "%2F"]) {
          await store.put("a", key, key);
          equal(await store.get("a", key), key, `key ${JSON.stringify(key)}`);
        }
        await store.put("b", "é", "other namespace");
        equal(await store.get("a", "é"), "é", "namespace a");
        equal(await store.get("b", "é"), "other namespace", "namespace b");
        equal(await store.list("b"), ["é"], "list of namespace b");
      },
    },
    {
      name: "list returns live keys sorted in JavaScript order",
      run: async () => {
        const { store } = await subject.open(Date.now);
        const keys = ["b", "B", "a", "_x", "10", "9", "a-1", "a_1", "Z"];
        for (const key of keys) await store.put("ns", key, key);
        equal(await store.list("ns"), [...keys].sort(), "list");
      },
    },
    {
      name: "an expired entry behaves exactly like a missing one (get, list, delete, take)",
      run: async () => {
        let now = 1000;
        const { store } = await subject.open(() => now);
        const kv = store as Purging;
        await kv.put("ns", "short", "s", { ttlMs: 10 });
        await kv.put("ns", "long", "l", { ttlMs: 1000 });
        await kv.put("ns", "forever", "f");
        equal(await kv.get("ns", "short"), "s", "live before its TTL");
        now = 1010;
        equal(await kv.get("ns", "short"), undefined, "get after the TTL");
        equal(await kv.list("ns"), ["forever", "long"], "list after the short TTL");
        equal(await kv.delete("ns", "short"), false, "delete of an expired key");
        await kv.put("ns", "gone", "g", { ttlMs: 1 });
        now = 1011;
        if (kv.take !== undefined) equal(await kv.take("ns", "gone"), undefined, "take of an expired key");
        now = 5000;
        equal(await kv.list("ns"), ["forever"], "list after the long TTL");
        if (kv.purgeExpired !== undefined) {
          await kv.put("ns", "p", 1, { ttlMs: 1 });
          now = 5001;
          ok((await kv.purgeExpired()) >= 1, "purgeExpired removes the expired entries");
          equal(await kv.purgeExpired(), 0, "a second purge finds none");
          equal(await kv.list("ns"), ["forever"], "purge keeps live entries");
        }
        await kv.put("ns", "short", "again");
        equal(await kv.get("ns", "short"), "again", "an expired key can be written again");
      },
    },
    {
      name: "rejects a TTL that is not a positive number, and a value that is not JSON",
      run: async () => {
        const { store } = await subject.open(Date.now);
        await rejects(() => store.put("ns", "k", 1, { ttlMs: 0 }), "validation", "ttlMs 0", /ttlMs/);
        await rejects(
          () => store.put("ns", "k", 1, { ttlMs: Number.NaN }),
          "validation",
          "ttlMs NaN",
          /ttlMs/,
        );
        await rejects(() => store.put("ns", "k", 1, { ttlMs: -1 }), "validation", "ttlMs -1", /ttlMs/);
        await rejects(() => store.put("ns", "k", undefined as never), "validation", "undefined value");
        equal(await store.get("ns", "k"), undefined, "nothing was written");
      },
    },
    {
      name: "batch applies its operations in order, and none when one is invalid",
      run: async () => {
        let now = 0;
        const { store } = await subject.open(() => now);
        await store.put("ns", "old", 1);
        await store.batch([
          { op: "put", namespace: "ns", key: "a", value: 1 },
          { op: "put", namespace: "ns", key: "a", value: 2 },
          { op: "delete", namespace: "ns", key: "old" },
          { op: "delete", namespace: "ns", key: "missing" },
          { op: "put", namespace: "n2", key: "y", value: "y" },
          { op: "put", namespace: "ns", key: "t", value: "t", ttlMs: 5 },
        ]);
        equal(await store.get("ns", "a"), 2, "the later put wins");
        equal(await store.get("ns", "old"), undefined, "deleted in the batch");
        equal(await store.get("n2", "y"), "y", "another namespace in the same batch");
        equal(await store.list("ns"), ["a", "t"], "list after the batch");
        now = 5;
        equal(await store.list("ns"), ["a"], "a batch put honours its TTL");
        await rejects(
          () =>
            store.batch([
              { op: "delete", namespace: "ns", key: "a" },
              { op: "put", namespace: "ns", key: "b", value: 1 },
              { op: "put", namespace: "ns", key: "c", value: 1, ttlMs: -1 },
            ]),
          "validation",
          "a batch with an invalid TTL",
          /ttlMs/,
        );
        equal(await store.list("ns"), ["a"], "nothing of the refused batch was applied");
        await rejects(() => store.batch("nope" as never), "validation", "a batch that is not an array");
        await store.batch([]);
      },
    },
  ];
  cases.push({
    name: "take removes and returns a live entry in one atomic step: of 8 concurrent takers, exactly one wins",
    run: async () => {
      const { store, connect } = await subject.open(Date.now);
      if (store.take === undefined) return; // optional in the contract: callers fall back to get + delete
      await store.put("ns", "k", { v: 1 });
      equal(await store.take("ns", "k"), { v: 1 }, "take returns the value");
      equal(await store.get("ns", "k"), undefined, "take removed it");
      equal(await store.take("ns", "k"), undefined, "a second take gets nothing");
      equal(await store.take("ns", "missing"), undefined, "take of a missing key");
      const takers = [store];
      for (let i = 1; i < 8; i++) takers.push(connect === undefined ? store : await connect());
      for (let round = 0; round < 20; round++) {
        const key = `claim-${round}`;
        await store.put("claims", key, { round });
        const got = await Promise.all(
          takers.map((t) => (t.take as NonNullable<KeyValueStore["take"]>)("claims", key)),
        );
        const winners = got.filter((g) => g !== undefined);
        equal(winners, [{ round }], `round ${round}: the values the takers got`);
        equal(await store.get("claims", key), undefined, `round ${round}: the key is gone`);
      }
    },
  });
  cases.push({
    name: "compareAndSet writes only over the expected value: of 8 concurrent setters, exactly one wins",
    run: async () => {
      const { store, connect } = await subject.open(Date.now);
      const cas = store.compareAndSet?.bind(store);
      if (cas === undefined) return; // optional in the contract (CheckpointStore needs it)
      equal(await cas("ns", "k", undefined, { v: 1, s: "é😀" }), true, "create when absent");
      equal(await cas("ns", "k", undefined, { v: 2 }), false, "create when present");
      equal(await cas("ns", "k", { v: 9 }, { v: 2 }), false, "swap over a wrong value");
      const read = await store.get("ns", "k");
      equal(await cas("ns", "k", read, { v: 2 }), true, "swap over the value as read");
      equal(await store.get("ns", "k"), { v: 2 }, "the swapped value");
      equal(await cas("ns", "k", { v: 1 }, undefined), false, "delete over a wrong value");
      equal(await cas("ns", "k", { v: 2 }, undefined), true, "delete over the expected value");
      equal(await store.get("ns", "k"), undefined, "deleted");
      equal(await cas("ns", "k", undefined, undefined), true, "absent as expected, nothing written");
      const setters = [store];
      for (let i = 1; i < 8; i++) setters.push(connect === undefined ? store : await connect());
      for (let round = 0; round < 10; round++) {
        const key = `cas-${round}`;
        await store.put("cas", key, { round, owner: "none" });
        const expected = await store.get("cas", key);
        const wins = await Promise.all(
          setters.map((t, i) =>
            (t.compareAndSet as NonNullable<KeyValueStore["compareAndSet"]>)("cas", key, expected, {
              round,
              owner: `w${i}`,
            }),
          ),
        );
        equal(wins.filter(Boolean).length, 1, `round ${round}: setters that won`);
        const winner = wins.indexOf(true);
        equal(
          await store.get("cas", key),
          { round, owner: `w${winner}` },
          `round ${round}: the winner's value`,
        );
      }
    },
  });
  return cases;
}
