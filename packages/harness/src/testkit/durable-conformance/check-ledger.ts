import type { LedgerEntry } from "./execution-ledger.js";

/** Options of {@link checkLedger}. */
export interface LedgerCheckOptions {
  /**
   * How many times a worker died during the runs (default 1): each death lets the one step it had
   * in flight run once more, so an at-least-once step may run at most `1 + crashes` times.
   */
  crashes?: number;
  /**
   * Steps the engine had journaled as completed before the crash, as `<runId>:<callId>` (an
   * engine test that reads its journal, or the testkit's replay double): each ran exactly once.
   */
  completed?: Iterable<string>;
}

/** What {@link checkLedger} counted: executions per `<runId>:<callId>`, by kind. */
export interface LedgerSummary {
  models: Map<string, number>;
  tools: Map<string, number>;
  /** Executions that repeated an earlier one (the at-least-once re-runs the crashes caused). */
  duplicates: number;
}

/** Thrown by {@link checkLedger}: every violated rule, one per line. */
export class LedgerViolationError extends Error {
  readonly violations: string[];

  constructor(violations: string[]) {
    super(`execution ledger violates the durability rules:\n${violations.join("\n")}`);
    this.name = "LedgerViolationError";
    this.violations = violations;
  }
}

/**
 * Check the execution ledger of one or more runs against issue 18's rules, and count:
 * - a `sideEffects: "once"` tool never ran twice for the same `(runId, callId)`;
 * - an at-least-once tool, or a model call, ran at most `1 + crashes` times per `(runId, callId)`
 *   (a step in flight when its worker died runs at most once more per death), and a tool always
 *   with the same idempotency key, `<runId>:<callId>`;
 * - a step listed in `completed` (journaled before the crash) ran exactly once: replay never
 *   re-runs it.
 * Throws a {@link LedgerViolationError} listing every violation; returns the counts otherwise.
 */
export function checkLedger(
  entries: readonly LedgerEntry[],
  options: LedgerCheckOptions = {},
): LedgerSummary {
  const crashes = options.crashes ?? 1;
  const models = new Map<string, number>();
  const tools = new Map<string, number>();
  const violations: string[] = [];
  const sideEffects = new Map<string, LedgerEntry["sideEffects"]>();
  let duplicates = 0;
  for (const entry of entries) {
    const key = `${entry.runId}:${entry.callId}`;
    const counts = entry.kind === "model" ? models : tools;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n > 1) duplicates++;
    if (entry.kind !== "tool") continue;
    if (entry.idempotencyKey !== key) {
      violations.push(
        `tool ${entry.tool ?? "?"} ${key}: ran with idempotency key ${JSON.stringify(entry.idempotencyKey)}, expected "${key}"`,
      );
    }
    sideEffects.set(key, entry.sideEffects);
  }
  for (const [key, n] of tools) {
    if (sideEffects.get(key) === "once" && n > 1)
      violations.push(`once tool ${key}: ran ${n} times (at most 1)`);
    else if (n > 1 + crashes)
      violations.push(
        `at-least-once tool ${key}: ran ${n} times (at most ${1 + crashes} with ${crashes} crash(es))`,
      );
  }
  for (const [key, n] of models) {
    if (n > 1 + crashes)
      violations.push(`model call ${key}: ran ${n} times (at most ${1 + crashes} with ${crashes} crash(es))`);
  }
  for (const key of options.completed ?? []) {
    const n = (tools.get(key) ?? 0) + (models.get(key) ?? 0);
    if (n !== 1) violations.push(`step ${key} was journaled as completed but ran ${n} times (exactly 1)`);
  }
  if (violations.length > 0) throw new LedgerViolationError(violations);
  return { models, tools, duplicates };
}
