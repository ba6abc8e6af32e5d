/**
 * Live-resource accounting shared by the resource-hygiene setup file and the fault tests:
 * `process.getActiveResourcesInfo()` counted by type, compared against a baseline.
 */

import { createHook } from "node:async_hooks";

/** Resource types never reported (process-level, opened lazily by Node or the test runner). */
export const RESOURCE_ALLOWLIST: ReadonlySet<string> = new Set(["TTYWrap", "PipeWrap", "SignalWrap"]);

/** Count the active resources (handles, requests, timers) by type. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** Resource types with more live instances than in `baseline` (`"Timeout +2"`), allowlist excluded. */
export function newResources(baseline: ReadonlyMap<string, number>): string[] {
  const leaked: string[] = [];
  for (const [type, count] of activeResources()) {
    const extra = count - (baseline.get(type) ?? 0);
    if (extra > 0 && !RESOURCE_ALLOWLIST.has(type)) leaked.push(`${type} +${extra}`);
  }
  return leaked.sort();
}

/**
 * Wait (polling every 10 ms, at most `graceMs`) until nothing beyond `baseline` is alive; returns
 * what is still alive then (`[]` when clean). Sockets and file handles close asynchronously, so a
 * short grace is needed; a clean state returns on the first poll.
 */
export async function settleResources(
  baseline: ReadonlyMap<string, number>,
  graceMs = 2000,
): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  let leaked = newResources(baseline);
  while (leaked.length > 0 && Date.now() < deadline) {
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
    leaked = newResources(baseline);
  }
  return leaked;
}

/**
 * Debug aid (`TINYAGENTS_LEAK_TRACE=1`): remember where every live timer and handle was created,
 * so a leak report can say which code opened what it names. Costs a stack capture per resource,
 * so it is off by default.
 */
export function traceResourceOrigins(): () => string[] {
  const origins = new Map<number, { type: string; stack: string }>();
  const hook = createHook({
    init(asyncId, type) {
      if (type === "PROMISE" || RESOURCE_ALLOWLIST.has(type)) return;
      const stack = (new Error().stack ?? "").split("\n").slice(2, 14).join("\n");
      origins.set(asyncId, { type, stack });
    },
    destroy(asyncId) {
      origins.delete(asyncId);
    },
  });
  hook.enable();
  return () => [...origins.values()].map((o) => `${o.type}\n${o.stack}`);
}
