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
      if (test.failureMessages?.length) messages.set(key, test.failureMessages[0]);
    }
  }
  return { byTest, messages };
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
