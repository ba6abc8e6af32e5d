import type { KeyValueStore } from "../store/key-value-store.js";

/**
 * The index of live runs of a `CheckpointStore` (`<namespace>.live`, one key per run that is
 * running or paused): a supervisor pass lists it instead of every record ever written, so its
 * cost follows the live runs, not the store's history. An entry is written BEFORE the take that
 * makes a run live (a crash in between leaves an entry without a record, which a later pass
 * drops once it is older than `ORPHAN_ENTRY_MS`, a minute) and removed after the write that ends the
 * run (a crash in between leaves an entry of a finished run, which a pass drops at once).
 */
export interface LiveEntry {
  /** When the entry was written (epoch ms, the writer's clock). */
  since: number;
}

/** An index entry without a record this old is left over from a crashed take: drop it. */
export const ORPHAN_ENTRY_MS = 60_000;

/** The namespace of the live index of runs recorded in `namespace`. */
export function liveNamespaceOf(namespace: string): string {
  return `${namespace}.live`;
}

/** Index run `runId` as live (idempotent). */
export async function markLive(
  store: KeyValueStore,
  namespace: string,
  runId: string,
  now: number,
): Promise<void> {
  if ((await store.get(namespace, runId)) !== undefined) return;
  const entry: LiveEntry = { since: now };
  await store.put(namespace, runId, { ...entry });
}

/** Drop run `runId` from the live index (it ended, or was deleted). */
export async function unmarkLive(store: KeyValueStore, namespace: string, runId: string): Promise<void> {
  await store.delete(namespace, runId);
}

/** The `since` of an index entry (0 for a malformed one: dropped like an old orphan). */
export function entrySince(value: unknown): number {
  const since = (value as Partial<LiveEntry> | null | undefined)?.since;
  return typeof since === "number" ? since : 0;
}
