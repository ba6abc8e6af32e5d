import { validationError } from "@tinyagents/inference";
import type { RunConfig } from "../contracts/run-config.js";
import { assertStorableKey } from "../encoding/storable-key.js";
import { checkOptionalSetting } from "../limits/check-setting.js";
import { validateGraphNode } from "./graph-node.js";

export type { RunConfig } from "../contracts/run-config.js";

const COUNT = { min: 0, integer: true } as const;

/** Default maximum sub-agent nesting depth. */
export const DEFAULT_MAX_DEPTH = 8;

/**
 * Build a RunConfig from partial input, validating it. `runId` (default `input.runId`) is
 * required; `defaultMaxDepth` applies when `input.maxDepth` is unset.
 */
export function runConfig(
  input: Partial<RunConfig>,
  runId: string | undefined = input.runId,
  defaultMaxDepth: number = DEFAULT_MAX_DEPTH,
): RunConfig {
  // Object.assign, not a spread plus new keys: that pattern hits a slow path in Node 20's V8.
  const config: RunConfig = Object.assign({}, input, {
    runId: runId as string,
    tags: input.tags ?? [],
    metadata: input.metadata ?? {},
    depth: input.depth ?? 0,
    maxDepth: input.maxDepth ?? defaultMaxDepth,
  });
  validateRunConfig(config);
  const graph = config.graphNode;
  if (graph !== undefined) {
    config.parentRunId ??= graph.graphRunId;
    config.rootRunId ??= graph.graphRunId;
    if (graph.threadId !== undefined) config.threadId ??= graph.threadId;
  }
  return config;
}

function validateRunConfig(config: RunConfig): void {
  if (typeof config.runId !== "string" || config.runId === "") {
    throw validationError("RunConfig.runId must be a non-empty string", { field: "runId" });
  }
  // Ids become store keys (journal streams, status records, threads): refuse what no store can
  // keep, before the run starts rather than on its first write.
  assertStorableKey(config.runId, "runId");
  for (const field of ["threadId", "parentRunId", "rootRunId"] as const) {
    if (config[field] !== undefined) assertStorableKey(config[field], field);
  }
  checkOptionalSetting("RunConfig", "timeoutMs", config.timeoutMs, { min: 0 });
  checkOptionalSetting("RunConfig", "maxModelCalls", config.maxModelCalls, COUNT);
  checkOptionalSetting("RunConfig", "maxToolCalls", config.maxToolCalls, COUNT);
  checkOptionalSetting("RunConfig", "maxDepth", config.maxDepth, COUNT);
  checkOptionalSetting("RunConfig", "depth", config.depth, COUNT);
  if (config.graphNode !== undefined) validateGraphNode(config.graphNode);
  if (!Array.isArray(config.tags))
    throw validationError("RunConfig.tags must be an array of strings", { field: "tags" });
}
