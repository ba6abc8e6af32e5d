import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { AppendLog } from "../../store/append-log.js";
import { type ConformanceCase, ConformanceFailure, equal, ok, rejects } from "./conformance-check.js";

/** An AppendLog under test. */
export interface AppendLogConformanceSubject {
  /**
   * A fresh, EMPTY log. `connect`, when the backend has it, opens another handle on the same
   * storage (as a second process would): the suite then checks that handles share offsets.
   */
  open(): Promise<{ log: AppendLog; connect?: () => Promise<AppendLog> }>;
}

/**
 * The AppendLog contract (see `AppendLog`), as runner-agnostic cases: offsets from 0 per stream,
 * strictly increasing in call order (also for 200 concurrent appends), windows by offset,
 * lengths, sorted stream names, input validation; with `connect`, two handles writing one stream
 * lose and mix nothing and a new handle continues the sequence; with `appendGroups`, group
 * commit is all or nothing and a group's `check` sees its stream's last value. Every built-in
 * backend runs it (memory, JSONL files, SQLite, Postgres).
 */
export function appendLogConformance(subject: AppendLogConformanceSubject): ConformanceCase[] {
  return [
    {
      name: "append/appendMany hand out offsets from 0 per stream; readFrom, length and listStreams agree",
      run: async () => {
        const { log } = await subject.open();
        equal(await log.append("s", { n: 0 }), 0, "first append");
        equal(await log.appendMany("s", [{ n: 1 }, "two", [3]]), [1, 2, 3], "appendMany");
        equal(await log.append("t", { t: true }), 0, "another stream starts at 0");
        equal(await log.appendMany("s", []), [], "appendMany of nothing");
        equal(await log.length("s"), 4, "length");
        equal(await log.length("none"), 0, "length of a stream never written");
        equal(
          await log.readFrom("s", 1, 2),
          [
            { offset: 1, value: { n: 1 } },
            { offset: 2, value: "two" },
          ],
          "readFrom window",
        );
        equal(
          await log.readFrom("s", 0, 100),
          [
            { offset: 0, value: { n: 0 } },
            { offset: 1, value: { n: 1 } },
            { offset: 2, value: "two" },
            { offset: 3, value: [3] },
          ],
          "readFrom all",
        );
        equal(await log.readFrom("s", 10, 5), [], "readFrom past the end");
        const streams = await log.listStreams();
        ok(
          streams.includes("s") && streams.includes("t"),
          `listStreams has s and t: ${JSON.stringify(streams)}`,
        );
        equal(streams, [...streams].sort(), "listStreams is sorted");
      },
    },
    {
      name: "round-trips JSON values exactly",
      run: async () => {
        const { log } = await subject.open();
        const values: JsonValue[] = [
          null,
          false,
          -0.25,
          "é 😀 \u2028",
          { a: { b: [1, null, ""] } },
          "x".repeat(50_000),
        ];
        await log.appendMany("v", values);
        equal(
          (await log.readFrom("v", 0, 10)).map((e) => e.value),
          values,
          "values read back",
        );
      },
    },
    {
      name: "200 concurrent appends from one handle: distinct offsets, increasing in call order",
      run: async () => {
        const { log } = await subject.open();
        const offsets = await Promise.all(Array.from({ length: 200 }, (_, i) => log.append("s", { i })));
        for (let i = 1; i < offsets.length; i++) {
          if ((offsets[i] as number) <= (offsets[i - 1] as number)) {
            throw new ConformanceFailure(
              `offsets not increasing in call order at ${i}: ${JSON.stringify(offsets)}`,
            );
          }
        }
        const read = await log.readFrom("s", 0, 1000);
        equal(
          read.map((e) => e.offset),
          offsets,
          "stored offsets",
        );
        equal(
          read.map((e) => (e.value as { i: number }).i),
          Array.from({ length: 200 }, (_, i) => i),
          "stored order",
        );
        equal(await log.length("s"), (offsets[199] as number) + 1, "length is one past the last offset");
      },
    },
    {
      name: "validates offsets, limits and values",
      run: async () => {
        const { log } = await subject.open();
        await rejects(() => log.readFrom("s", -1, 1), "validation", "negative offset", /offset/);
        await rejects(() => log.readFrom("s", 0.5, 1), "validation", "fractional offset", /offset/);
        await rejects(() => log.readFrom("s", 0, 0), "validation", "zero limit", /limit/);
        await rejects(() => log.append("s", undefined as never), "validation", "undefined value", /not JSON/);
        equal(await log.length("s"), 0, "nothing was appended");
      },
    },
    {
      name: "two handles writing one stream (as two processes would) lose and mix nothing; a new handle continues",
      run: async () => {
        const { log: a, connect } = await subject.open();
        if (connect === undefined) return; // a single-handle backend (in memory)
        const b = await connect();
        const writes: Promise<number>[] = [];
        for (let i = 0; i < 100; i++) {
          writes.push(a.append("s", { w: "a", i }));
          writes.push(b.appendMany("s", [{ w: "b", i }]).then((o) => o[0] as number));
        }
        const offsets = await Promise.all(writes);
        equal(new Set(offsets).size, 200, "distinct offsets");
        const all = await (await connect()).readFrom("s", 0, 1000);
        equal(all.length, 200, "entries stored");
        for (const [k, offset] of offsets.entries()) {
          const entry = all.find((e) => e.offset === offset);
          equal(
            entry?.value,
            { w: k % 2 === 0 ? "a" : "b", i: Math.floor(k / 2) },
            `entry at offset ${offset}`,
          );
        }
        for (const w of ["a", "b"]) {
          const mine = all
            .filter((e) => (e.value as { w: string }).w === w)
            .map((e) => (e.value as { i: number }).i);
          equal(
            mine,
            Array.from({ length: 100 }, (_, i) => i),
            `writer ${w}'s entries in its call order`,
          );
        }
        const next = await (await connect()).append("s", "last");
        equal(next, Math.max(...offsets) + 1, "a new handle continues the sequence");
      },
    },
    {
      name: "appendGroups: several streams in one write, all or nothing; check sees each stream's last value",
      run: async () => {
        const { log } = await subject.open();
        if (log.appendGroups === undefined) return; // optional group commit
        await log.append("a", "a0");
        const seen: Record<string, JsonValue | undefined> = {};
        const offsets = await log.appendGroups([
          {
            stream: "a",
            values: ["a1", "a2"],
            check: (last) => {
              seen.a = last;
            },
          },
          {
            stream: "b",
            values: ["b0"],
            check: (last) => {
              seen.b = last;
            },
          },
        ]);
        equal(offsets, [[1, 2], [0]], "offsets per group");
        equal(seen, { a: "a0" }, "check got the last value (undefined for an empty stream)");
        ok("b" in seen, "check ran for the empty stream");
        const groups = log.appendGroups.bind(log);
        await rejects(
          () =>
            groups([
              { stream: "a", values: ["never"] },
              {
                stream: "c",
                values: ["never"],
                check: () => {
                  throw new TinyAgentsError("conflict", "refused by the check");
                },
              },
            ]),
          "conflict",
          "a batch refused by a check rejects with the check's error",
          /refused by the check/,
        );
        equal(
          (await log.readFrom("a", 0, 10)).map((e) => e.value),
          ["a0", "a1", "a2"],
          "stream a unchanged",
        );
        equal(await log.length("c"), 0, "stream c unchanged");
        equal(await log.appendGroups([]), [], "no groups");
      },
    },
  ];
}
