import { validationError } from "@tinyagents/inference";
import { runUsage } from "../agent-target.js";
import type { Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";

/** Upper bounds of {@link withinLimits}; at least one is required. */
export interface LimitsOptions extends ScorerOptions {
  /** Run cost in USD (sub-agents included). A run whose cost is unknown (no price) fails this check. */
  maxCostUsd?: number;
  /** Total tokens (sub-agents included). */
  maxTokens?: number;
  /** Wall time of the run in milliseconds. */
  maxLatencyMs?: number;
  /** The run's own model calls. */
  maxModelCalls?: number;
  maxToolCalls?: number;
}

const BOUNDS = ["maxCostUsd", "maxTokens", "maxLatencyMs", "maxModelCalls", "maxToolCalls"] as const;

/**
 * The fraction of the given limits the run stayed within (`<=`); the reason lists each breach
 * with its figure. Name `limits`, threshold 1.
 */
export function withinLimits(options: LimitsOptions): Scorer {
  const given = BOUNDS.filter((key) => options[key] !== undefined);
  if (given.length === 0) {
    throw validationError(`withinLimits needs at least one of ${BOUNDS.join(", ")}`, { field: "options" });
  }
  for (const key of given) {
    const value = options[key] as number;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw validationError(`withinLimits: ${key} must be a non-negative number, got ${String(value)}`, {
        field: key,
      });
    }
  }
  return makeScorer("limits", 1, options, (context) => {
    const { run } = context;
    const breaches: string[] = [];
    const check = (bound: number | undefined, actual: number, label: string, unit = "", prefix = "") => {
      if (bound !== undefined && actual > bound) {
        breaches.push(`${label} ${prefix}${actual}${unit} > ${prefix}${bound}${unit}`);
      }
    };
    if (options.maxCostUsd !== undefined) {
      if (run.cost.unknown === true) breaches.push("cost unknown (a model has no price)");
      else check(options.maxCostUsd, round(run.cost.total), "cost", "", "$");
    }
    check(options.maxTokens, runUsage(run).totalTokens, "tokens");
    check(options.maxLatencyMs, Math.round(context.latencyMs), "latency", " ms");
    check(options.maxModelCalls, run.modelCalls, "model calls");
    check(options.maxToolCalls, run.toolCalls, "tool calls");
    return {
      score: (given.length - breaches.length) / given.length,
      reason: breaches.length === 0 ? `within ${given.length} limit(s)` : breaches.join("; "),
    };
  });
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
