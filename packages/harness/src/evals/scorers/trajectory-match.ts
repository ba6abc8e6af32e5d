import { validationError } from "@tinyagents/inference";
import type { Trajectory } from "../../testkit/trajectory.js";
import type { ExpectedTrajectory } from "../eval-case.js";
import type { Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";

/** Options of {@link trajectoryMatch}. */
export interface TrajectoryMatchOptions extends ScorerOptions {
  /** The trajectory to check (default: the case's `expectedTrajectory`). */
  expected?: ExpectedTrajectory;
}

/**
 * Checks the run's tool trajectory with the testkit's `Trajectory` assertions: every tool in
 * `called` was called (with matching arguments when given), none in `notCalled` was, `order`
 * holds (a subsequence), and the model was called `modelCalls` times. The score is the fraction
 * of checks that hold; the reason lists the ones that did not. Name `trajectory`, threshold 1.
 */
export function trajectoryMatch(options: TrajectoryMatchOptions = {}): Scorer {
  return makeScorer("trajectory", 1, options, (context) => {
    const expected = options.expected ?? context.case.expectedTrajectory;
    if (expected === undefined) {
      throw validationError(
        `scorer "${options.name ?? "trajectory"}": case "${context.case.id}" has no "expectedTrajectory"; add one or give the scorer a value`,
        { field: "expectedTrajectory", caseId: context.case.id },
      );
    }
    const checks = trajectoryChecks(
      expected,
      context.trajectory.forRun(context.run.runId),
      context.trajectory,
    );
    if (checks.length === 0) return { score: 1, reason: "the expected trajectory is empty" };
    const failed = checks.filter((check) => check.failure !== undefined);
    return {
      score: (checks.length - failed.length) / checks.length,
      reason:
        failed.length === 0
          ? `${checks.length} trajectory check(s) hold`
          : failed.map((check) => check.failure).join("; "),
    };
  });
}

interface Check {
  failure: string | undefined;
}

/** One check per expectation; tool checks see sub-agents' calls too, the model-call count only the run's own. */
function trajectoryChecks(expected: ExpectedTrajectory, own: Trajectory, tree: Trajectory): Check[] {
  const checks: Check[] = [];
  const run = (assertion: () => void) => {
    try {
      assertion();
      checks.push({ failure: undefined });
    } catch (error) {
      // The assertion message ends with the whole event sequence: keep what comes before it.
      const message = String((error as Error).message).split("\nActual events:")[0] ?? "";
      checks.push({ failure: message.replace(/:?\n\s*/g, (m) => (m.startsWith(":") ? ": " : "; ")) });
    }
  };
  for (const call of expected.called ?? []) {
    if (typeof call === "string") run(() => tree.assertToolCalled(call));
    else run(() => tree.assertToolCalled(call.name, call.arguments));
  }
  for (const name of expected.notCalled ?? []) run(() => tree.assertToolNotCalled(name));
  if (expected.order !== undefined && expected.order.length > 0) {
    const order = expected.order;
    run(() => tree.assertOrder(order));
  }
  if (expected.modelCalls !== undefined) {
    const times = expected.modelCalls;
    run(() => own.assertModelCalledTimes(times));
  }
  return checks;
}
