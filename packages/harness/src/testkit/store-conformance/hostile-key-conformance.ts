import { TinyAgentsError } from "@tinyagents/inference";
import type { AppendLogConformanceSubject } from "./append-log-conformance.js";
import { type ConformanceCase, ConformanceFailure, equal, rejects } from "./conformance-check.js";
import type { KeyValueConformanceSubject } from "./key-value-conformance.js";

/**
 * Ids no store can keep losslessly: every backend must refuse them with `validation` (drivers
 * and file systems would turn each lone surrogate into U+FFFD, so distinct ids would share a
 * record; Postgres text cannot hold NUL).
 */
export const UNSTORABLE_IDS: readonly string[] = Object.freeze([
  "lone-\uD800",
  "lone-\uDBFF",
  "\uDC00-trail-first",
  "nul-\u0000-inside",
]);

/**
 * Hostile but valid ids: each one is either refused with `validation` (a store may refuse what
 * it cannot hold, such as a path separator in a file name) or kept apart from every other one.
 * Pairs that naive encodings merge sit next to each other.
 */
export const HOSTILE_IDS: readonly string[] = Object.freeze([
  "plain",
  "Plain",
  "lone-\uFFFD", // what a lone surrogate would become
  "caf\u00e9", // NFC
  "cafe\u0301", // NFD of the same text
  "a/b",
  "a%2Fb",
  "a%252Fb",
  "a\\b",
  "..",
  ".",
  ".hidden",
  "%2E",
  " padded ",
  "padded",
  "tab\tinside",
  "new\nline",
  "emoji-😀",
  "quote\"'`",
  "semi;colon -- drop",
  "CON",
  "x".repeat(180),
]);

/** Is `error` the `validation` refusal a store may give for an id it cannot hold? */
function refused(error: unknown): boolean {
  return TinyAgentsError.isInstance(error, "validation");
}

/**
 * Hostile ids against a KeyValueStore (issue 37): unstorable ids (lone surrogates, NUL) are
 * refused with `validation` as namespace and as key, on every method, before anything is
 * written; {@link HOSTILE_IDS} are each refused or kept apart (no two distinct keys share one
 * record; `list` returns exactly the accepted ones).
 */
export function hostileKeyConformance(subject: KeyValueConformanceSubject): ConformanceCase[] {
  return [
    {
      name: "refuses ids that are not well-formed Unicode or hold NUL, as namespace and as key",
      run: async () => {
        const { store } = await subject.open(Date.now);
        for (const id of UNSTORABLE_IDS) {
          const what = `id ${JSON.stringify(id)}`;
          await rejects(() => store.put("ns", id, 1), "validation", `put with key ${what}`);
          await rejects(() => store.put(id, "k", 1), "validation", `put with namespace ${what}`);
          await rejects(() => store.get("ns", id), "validation", `get with key ${what}`);
          await rejects(() => store.delete("ns", id), "validation", `delete with key ${what}`);
          await rejects(() => store.list(id), "validation", `list of namespace ${what}`);
          await rejects(
            () =>
              store.batch([
                { op: "put", namespace: "ns", key: "fine", value: 1 },
                { op: "put", namespace: "ns", key: id, value: 2 },
              ]),
            "validation",
            `batch with key ${what}`,
          );
          if (store.take !== undefined) {
            await rejects(
              () => (store.take as NonNullable<typeof store.take>)("ns", id),
              "validation",
              `take ${what}`,
            );
          }
        }
        equal(await store.list("ns"), [], "nothing was written by the refused calls");
      },
    },
    {
      name: "keeps hostile ids apart: each is refused with validation or reads back its own value",
      run: async () => {
        const { store } = await subject.open(Date.now);
        const accepted: string[] = [];
        for (const [i, id] of HOSTILE_IDS.entries()) {
          try {
            await store.put("ns", id, { i });
            accepted.push(id);
          } catch (error) {
            if (!refused(error)) throw new ConformanceFailure(`put ${JSON.stringify(id)}: ${String(error)}`);
          }
        }
        for (const id of accepted) {
          equal(await store.get("ns", id), { i: HOSTILE_IDS.indexOf(id) }, `get ${JSON.stringify(id)}`);
        }
        equal(
          [...(await store.list("ns"))].sort(),
          [...accepted].sort(),
          "list holds exactly the accepted ids",
        );
        // The same ids as namespaces: each namespace holds only its own key.
        const namespaces: string[] = [];
        for (const id of HOSTILE_IDS) {
          try {
            await store.put(id, "k", id);
            namespaces.push(id);
          } catch (error) {
            if (!refused(error))
              throw new ConformanceFailure(`put in namespace ${JSON.stringify(id)}: ${String(error)}`);
          }
        }
        for (const id of namespaces) {
          equal(await store.get(id, "k"), id, `get from namespace ${JSON.stringify(id)}`);
          equal(await store.list(id), ["k"], `list of namespace ${JSON.stringify(id)}`);
        }
      },
    },
  ];
}

/**
 * Hostile stream names against an AppendLog (issue 37): unstorable names are refused with
 * `validation` on append and read; {@link HOSTILE_IDS} are each refused or kept apart.
 */
export function hostileStreamConformance(subject: AppendLogConformanceSubject): ConformanceCase[] {
  return [
    {
      name: "refuses stream names that are not well-formed Unicode or hold NUL",
      run: async () => {
        const { log } = await subject.open();
        for (const id of UNSTORABLE_IDS) {
          const what = `stream ${JSON.stringify(id)}`;
          await rejects(() => log.append(id, 1), "validation", `append to ${what}`);
          await rejects(() => log.appendMany(id, [1, 2]), "validation", `appendMany to ${what}`);
          await rejects(() => log.readFrom(id, 0, 10), "validation", `readFrom ${what}`);
        }
        equal(await log.listStreams(), [], "nothing was written by the refused calls");
      },
    },
    {
      name: "keeps hostile stream names apart: each is refused with validation or reads back its own entries",
      run: async () => {
        const { log } = await subject.open();
        const accepted: string[] = [];
        for (const [i, id] of HOSTILE_IDS.entries()) {
          try {
            await log.append(id, { i });
            accepted.push(id);
          } catch (error) {
            if (!refused(error))
              throw new ConformanceFailure(`append to ${JSON.stringify(id)}: ${String(error)}`);
          }
        }
        for (const id of accepted) {
          equal(
            await log.readFrom(id, 0, 10),
            [{ offset: 0, value: { i: HOSTILE_IDS.indexOf(id) } }],
            `readFrom ${JSON.stringify(id)}`,
          );
        }
        equal(
          [...(await log.listStreams())].sort(),
          [...accepted].sort(),
          "listStreams holds exactly the accepted names",
        );
      },
    },
  ];
}
