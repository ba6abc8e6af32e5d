/** What `npm run test:stress` reports from its repetitions' Vitest JSON reports. */
import { describe, expect, it } from "vitest";
import { compareOutcomes, outcomesOf, repetitionArgs } from "../../scripts/lib/stress-outcomes.mjs";

const ROOT = "/repo";

/** A Vitest JSON report of one file whose tests had the given statuses. */
function report(statuses: Record<string, string>, file = "/repo/packages/a/a.test.ts") {
  return {
    testResults: [
      {
        name: file,
        status: Object.values(statuses).includes("failed") ? "failed" : "passed",
        assertionResults: Object.entries(statuses).map(([fullName, status]) => ({
          fullName,
          status,
          failureMessages: status === "failed" ? [`AssertionError: ${fullName} broke\n    at line 1`] : [],
        })),
      },
    ],
  };
}

describe("test:stress outcome comparison", () => {
  it("keys tests by file (relative to the root) and full name, keeping the first failure message", () => {
    const { byTest, messages } = outcomesOf(report({ "suite ok": "passed", "suite bad": "failed" }), ROOT);
    expect([...byTest]).toEqual([
      ["packages/a/a.test.ts > suite ok", "passed"],
      ["packages/a/a.test.ts > suite bad", "failed"],
    ]);
    expect(messages.get("packages/a/a.test.ts > suite bad")).toMatch(/^AssertionError: suite bad broke/);
  });

  it("says a timed-out test timed out (Vitest reports it as STACK_TRACE_ERROR) and how long each failure ran", () => {
    const { messages } = outcomesOf(
      {
        testResults: [
          {
            name: "/repo/t.test.ts",
            status: "failed",
            assertionResults: [
              {
                fullName: "slow",
                status: "failed",
                duration: 5159.3,
                failureMessages: ["Error: STACK_TRACE_ERROR\n    at task (chunk.js:1:1)"],
              },
              {
                fullName: "wrong",
                status: "failed",
                duration: 12,
                failureMessages: ["AssertionError: expected 1 to be 2"],
              },
            ],
          },
        ],
      },
      ROOT,
    );
    expect(messages.get("t.test.ts > slow")).toBe("timed out (the tier's per-test limit) after 5159 ms");
    expect(messages.get("t.test.ts > wrong")).toBe("AssertionError: expected 1 to be 2 after 12 ms");
  });

  it("runs each repetition on one worker (the repetitions are the parallelism) unless told otherwise", () => {
    expect(repetitionArgs("vitest.mjs", "unit", "/tmp/r.json", ["packages/harness"])).toEqual([
      "vitest.mjs",
      "run",
      "--project",
      "unit",
      "--reporter=json",
      "--outputFile=/tmp/r.json",
      "--maxWorkers=1",
      "packages/harness",
    ]);
    // Vitest refuses a repeated --maxWorkers: the user's own is the only one.
    expect(repetitionArgs("vitest.mjs", "unit", "/tmp/r.json", ["--maxWorkers=2"]).slice(6)).toEqual([
      "--maxWorkers=2",
    ]);
  });

  it("a file that failed before any test ran is one outcome with its message", () => {
    const { byTest, messages } = outcomesOf(
      {
        testResults: [
          { name: "/repo/x.test.ts", status: "failed", message: "hook timed out", assertionResults: [] },
        ],
      },
      ROOT,
    );
    expect([...byTest]).toEqual([["x.test.ts (file)", "failed"]]);
    expect(messages.get("x.test.ts (file)")).toBe("hook timed out");
  });

  it("lists exactly the tests whose status changed, with each repetition's status", () => {
    const runs = [
      report({ stable: "passed", flaky: "passed", broken: "failed" }),
      report({ stable: "passed", flaky: "failed", broken: "failed" }),
      report({ stable: "passed", flaky: "passed", broken: "failed" }),
    ].map((r) => outcomesOf(r, ROOT));
    const { tests, changed, alwaysFailed } = compareOutcomes(runs);
    expect(tests).toBe(3);
    expect(changed).toEqual([
      { key: "packages/a/a.test.ts > flaky", statuses: ["passed", "failed", "passed"] },
    ]);
    expect(alwaysFailed).toEqual(["packages/a/a.test.ts > broken"]);
  });

  it("a test missing from one repetition (its file crashed) counts as changed", () => {
    const runs = [report({ t: "passed" }), { testResults: [] }].map((r) => outcomesOf(r, ROOT));
    expect(compareOutcomes(runs).changed).toEqual([
      { key: "packages/a/a.test.ts > t", statuses: ["passed", "missing"] },
    ]);
  });

  it("identical repetitions report nothing", () => {
    const runs = [report({ a: "passed", b: "skipped" }), report({ a: "passed", b: "skipped" })].map((r) =>
      outcomesOf(r, ROOT),
    );
    expect(compareOutcomes(runs)).toEqual({ tests: 2, changed: [], alwaysFailed: [] });
  });
});
