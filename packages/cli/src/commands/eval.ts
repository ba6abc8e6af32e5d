import type { EvalComparison } from "@tinyagents/harness/evals";
import { COMMON_OPTIONS, parseCommandArgs, positiveInt } from "../core/args.js";
import { usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { openCliStore } from "../core/cli-store.js";
import { loadEvalDefinition } from "../core/eval-definition.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { EvalProgressRenderer } from "../render/eval-progress.js";
import { formatComparison, formatEvalReport } from "../render/eval-table.js";

/** The `--help` text of `tinyagents eval`. */
export const EVAL_HELP = `tinyagents eval <file> [options]

Run an eval: the file's default export is defineEval({ dataset, agent, scorers, thresholds })
(from @tinyagents/harness/evals; .js/.mjs, or .ts with tsx installed). Every case runs through the
agent, every run is journaled in the store (inspect one with \`tinyagents show <run-id>\`), and the
result is saved under its eval run id. Prints a table per case and per scorer, cost, tokens,
latency, failures and thresholds.

Options:
      --repeats N            run each case N times (means get 95% confidence intervals)
      --concurrency N        runs in flight at once (default: the definition's, else 4)
      --baseline ID          compare with an earlier eval run: regressions and improvements per case
      --fail-on-regression   with --baseline: exit 1 when any case or scorer regressed
      --tolerance X          with --baseline: ignore moves of at most X (0..1, default 0)
      --json                 print the result (and comparison) as one JSON object
      --langfuse             also push the eval to Langfuse as a dataset run: the dataset and
                             its items, each run's trace with its scores, linked to its item
                             (LANGFUSE_BASE_URL, LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY;
                             traces over OTLP need @opentelemetry/exporter-trace-otlp-proto)
      --list                 list the eval runs in the store instead (newest first)
      --db FILE              the SQLite store (default as for tinyagents run)
  -h, --help                 this help

Exit codes: 0 every threshold held · 1 a threshold failed, a scorer failed (threw, returned
garbage, timed out) or a regression (with --fail-on-regression) · 2 usage · 3 a bad eval file
or dataset · 130 cancelled (Ctrl-C; the partial result is saved)
`;

/** `tinyagents eval`: run an eval definition against the store; returns the exit code. */
export async function evalCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("eval", argv, {
    ...COMMON_OPTIONS,
    json: { type: "boolean" },
    repeats: { type: "string" },
    concurrency: { type: "string" },
    baseline: { type: "string" },
    "fail-on-regression": { type: "boolean" },
    tolerance: { type: "string" },
    list: { type: "boolean" },
    langfuse: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(EVAL_HELP);
    return EXIT.ok;
  }
  const evals = await import("@tinyagents/harness/evals");
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  try {
    const results = new evals.EvalStore(store.keyValue);
    if (values.list === true) {
      for (const run of await results.list()) {
        const rate = run.passRate === null ? "-" : `${Math.round(run.passRate * 1000) / 10}%`;
        io.stdout.write(
          `${run.evalRunId}  ${run.name}  ${run.status}  pass ${rate}  ${run.passed ? "ok" : "FAILED"}\n`,
        );
      }
      return EXIT.ok;
    }
    const file = positionals[0];
    if (file === undefined || positionals.length > 1) {
      throw usageError("eval needs one eval file: tinyagents eval examples/evals/travel.eval.ts");
    }
    const tolerance = values.tolerance === undefined ? undefined : Number(values.tolerance);
    if (tolerance !== undefined && !(tolerance >= 0 && tolerance <= 1)) {
      throw usageError(`--tolerance must be a number in [0, 1], got ${JSON.stringify(values.tolerance)}`);
    }
    // Langfuse before anything runs: missing variables are a usage error naming them.
    const langfuse = values.langfuse === true ? await langfuseClient(io.env) : undefined;
    // Load the baseline first: a wrong id fails before anything runs.
    const baseline = values.baseline === undefined ? undefined : await results.require(values.baseline);
    const { definition, dataset } = await loadEvalDefinition(file, io.cwd);
    const json = values.json === true;
    const progress = new EvalProgressRenderer(io.stderr);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    io.signals?.on("SIGINT", onSigint);
    const records: Promise<void>[] = [];
    let result: Awaited<ReturnType<typeof evals.evaluate>>;
    try {
      result = await evals.evaluate({
        agent: definition.agent,
        dataset,
        scorers: definition.scorers,
        ...(definition.name === undefined ? {} : { name: definition.name }),
        ...(definition.thresholds === undefined ? {} : { thresholds: definition.thresholds }),
        ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
        ...(definition.scorerTimeoutMs === undefined ? {} : { scorerTimeoutMs: definition.scorerTimeoutMs }),
        repeats: positiveInt("repeats", values.repeats) ?? definition.repeats ?? 1,
        concurrency: positiveInt("concurrency", values.concurrency) ?? definition.concurrency ?? 4,
        signal: controller.signal,
        journal: store.journal,
        statusStore: store.statusStore,
        store: results,
        ...(langfuse === undefined ? {} : { langfuse: { client: langfuse } }),
        onProgress: (update) => {
          progress.onProgress(update);
          const trial = update.trial;
          if (trial === undefined) return;
          const evalCase = dataset.cases.find((c) => c.id === trial.caseId);
          records.push(
            store.saveRun({
              runId: trial.runId,
              command: "eval",
              model: `eval:${update.evalRunId}`,
              prompt: (typeof evalCase?.input === "string" ? evalCase.input : trial.caseId).slice(0, 200),
              startedAt: Date.now() - Math.round(trial.latencyMs),
              threadId: null,
            }),
          );
        },
      });
    } finally {
      io.signals?.off("SIGINT", onSigint);
      progress.finish();
      await Promise.all(records);
    }
    let comparison: EvalComparison | undefined;
    if (baseline !== undefined) {
      comparison = evals.compareEvals(baseline, result, tolerance === undefined ? {} : { tolerance });
    }
    if (json) {
      io.stdout.write(
        `${JSON.stringify(comparison === undefined ? result : { ...result, comparison }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(`${formatEvalReport(result)}\n`);
      if (comparison !== undefined) io.stdout.write(`\n${formatComparison(comparison)}\n`);
    }
    if (result.langfuse !== undefined) {
      const pushed = result.langfuse;
      io.stderr.write(
        `langfuse: dataset "${pushed.datasetName}", run "${pushed.runName}": ${pushed.items} item(s), ${pushed.traces} trace(s), ${pushed.scores} score(s), ${pushed.runItems} run item(s)\n`,
      );
      for (const error of pushed.errors) io.stderr.write(`langfuse: ${error}\n`);
    }
    const unsaved = result.trials.filter((trial) => trial.storageError !== undefined);
    if (unsaved.length > 0) {
      io.stderr.write(
        `warning: ${unsaved.length} run(s) of eval ${result.evalRunId} were not fully saved to ${store.file}: ${unsaved[0]?.storageError?.message}\n`,
      );
    }
    if (result.status === "cancelled") {
      io.stderr.write(
        `eval ${result.evalRunId} cancelled: ${result.report.finished} of ${result.report.trials} run(s) finished\n`,
      );
      return EXIT.cancelled;
    }
    // A scorer that failed (threw, returned garbage, timed out) is never a pass, whatever the thresholds.
    const scorerErrors = result.report.scorers.reduce((sum, scorer) => sum + scorer.errors, 0);
    if (scorerErrors > 0) {
      io.stderr.write(
        `eval ${result.evalRunId} failed: ${scorerErrors} scorer error(s) (${result.report.scorers
          .filter((s) => s.errors > 0)
          .map((s) => `${s.scorer}: ${s.errors}`)
          .join(", ")}); see the failures above\n`,
      );
      return EXIT.failed;
    }
    const failed = result.thresholds.filter((check) => !check.passed);
    if (failed.length > 0) {
      io.stderr.write(
        `eval ${result.evalRunId} failed: ${failed.map((c) => `${c.name} ${c.expected}`).join(", ")}\n`,
      );
      return EXIT.failed;
    }
    if (
      values["fail-on-regression"] === true &&
      comparison !== undefined &&
      comparison.regressions.length > 0
    ) {
      io.stderr.write(
        `eval ${result.evalRunId} regressed against ${comparison.baselineId}: ${comparison.regressions.length} case/scorer figure(s) dropped\n`,
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** The Langfuse client of `--langfuse`, from the environment (a usage error names what is missing). */
async function langfuseClient(env: Readonly<Record<string, string | undefined>>) {
  const { LangfuseClient } = await import("@tinyagents/harness/langfuse");
  try {
    return LangfuseClient.fromEnv(env);
  } catch (error) {
    throw usageError(`--langfuse: ${error instanceof Error ? error.message : String(error)}`);
  }
}
