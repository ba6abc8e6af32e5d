// The comparison behind `npm run test:stress` (scripts/test-stress.mjs): read each repetition's
// Vitest JSON report, then list the tests whose outcome was not the same in every repetition.
import { relative } from "node:path";

/**
 * Every test of a Vitest JSON report (`--reporter=json`) as `file > full name` -> status, and the
 * first failure message of each failed one. A file that failed before running any test (a load
 * error, a failing hook) is one outcome, `file (file)`.
 */
export function outcomesOf(report, root) {
  const byTest = new Map();
  const messages = new Map();
  for (const file of report.testResults ?? []) {
    const path = relative(root, file.name);
    if ((file.assertionResults ?? []).length === 0) {
      byTest.set(`${path} (file)`, file.status);
      if (file.message) messages.set(`${path} (file)`, file.message);
    }
    for (const test of file.assertionResults ?? []) {
      const key = `${path} > ${test.fullName}`;
      byTest.set(key, test.status);
      if (test.failureMessages?.length) messages.set(key, failureOf(test));
    }
  }
  return { byTest, messages };
}

/**
 * A failed test's first failure message, with how long it ran when the report says. Vitest's JSON
 * report gives a test that hit its time limit as `Error: STACK_TRACE_ERROR` (the placeholder error
 * it creates to carry the test's location): that is said plainly, since a test that only times out
 * under load is CPU-starved or waiting on real time, not failing an assertion.
 */
function failureOf(test) {
  const message = test.failureMessages[0];
  const timedOut = message.startsWith("Error: STACK_TRACE_ERROR");
  const text = timedOut ? "timed out (the tier's per-test limit)" : message;
  return typeof test.duration === "number" ? `${text} after ${Math.round(test.duration)} ms` : text;
}

/**
 * The arguments of one repetition: `vitest run` of the project with a JSON report, ONE worker
 * (the repetitions run at once: they are the parallelism; a worker per core in each of them put
 * 10 workers and the busy loops on 2 cores, and CPU-bound tests hit the 5 s limit from starvation
 * alone) unless the user's vitest arguments, which come last, name their own `--maxWorkers`.
 */
export function repetitionArgs(vitest, project, reportFile, vitestArgs) {
  const workers = vitestArgs.some((arg) => arg.startsWith("--maxWorkers")) ? [] : ["--maxWorkers=1"];
  return [
    vitest,
    "run",
    "--project",
    project,
    "--reporter=json",
    `--outputFile=${reportFile}`,
    ...workers,
    ...vitestArgs,
  ];
}

/**
 * Compare the outcomes of several repetitions: `changed` lists each test whose status differed
 * (a test missing from a repetition counts as `missing`), with the status per repetition;
 * `alwaysFailed` the tests that failed in every one (not flakes). Both sorted by test.
 */
export function compareOutcomes(repetitions) {
  const keys = [...new Set(repetitions.flatMap((r) => [...r.byTest.keys()]))].sort();
  const changed = [];
  const alwaysFailed = [];
  for (const key of keys) {
    const statuses = repetitions.map((r) => r.byTest.get(key) ?? "missing");
    if (new Set(statuses).size > 1) changed.push({ key, statuses });
    else if (statuses[0] === "failed") alwaysFailed.push(key);
  }
  return { tests: keys.length, changed, alwaysFailed };
}
