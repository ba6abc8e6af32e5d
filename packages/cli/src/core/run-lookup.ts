import { CliError } from "./cli-error.js";
import type { CliStore } from "./cli-store.js";
import { EXIT } from "./exit-codes.js";

/**
 * The run a command names: `last` is the most recent root run of the store (sub-agent runs and
 * direct model calls are not runs of their own here); any other value is the run id itself.
 */
export async function resolveRunId(store: CliStore, wanted: string): Promise<string> {
  if (wanted !== "last") return wanted;
  const latest = (await store.statusStore.list({}))
    .filter((s) => s.parentRunId === undefined && s.component !== "model_call")
    .at(-1);
  if (latest === undefined) throw new CliError(`no runs recorded yet in ${store.file}`, EXIT.failed);
  return latest.runId;
}
