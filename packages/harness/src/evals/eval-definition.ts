import type { EvalAgentSource } from "./agent-target.js";
import type { EvalCase, EvalDataset } from "./eval-case.js";
import type { Scorer } from "./scorer.js";
import type { EvalThresholds } from "./thresholds.js";

/**
 * An eval as `tinyagents eval <file>` runs it: the default export of a module. `dataset` may be a
 * path to a `.jsonl`/`.json` file, resolved against the module's directory.
 */
export interface EvalDefinition {
  /** Shown in reports (default: the dataset's name). */
  name?: string;
  dataset: string | EvalDataset | EvalCase[];
  agent: EvalAgentSource;
  scorers: Scorer[];
  thresholds?: EvalThresholds;
  /** Defaults for `--repeats` and `--concurrency`. */
  repeats?: number;
  concurrency?: number;
  /** Wall-clock bound of each run in ms. */
  timeoutMs?: number;
  /** Bound of each scorer call in ms (default 120 s): past it, a `timeout` scorer error. */
  scorerTimeoutMs?: number;
}

/** Identity, typed: `export default defineEval({ dataset: "./cases.jsonl", agent, scorers })`. */
export function defineEval(definition: EvalDefinition): EvalDefinition {
  return definition;
}
