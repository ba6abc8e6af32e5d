import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { thrownError } from "../../test/support/thrown.js";
import { validateDataset } from "./dataset.js";
import { loadDataset, parseDataset } from "./dataset-file.js";

describe("validateDataset", () => {
  it("normalizes inline cases: ids default to case-<n>, fields kept", () => {
    const dataset = validateDataset(
      [
        { input: "hi", expected: "hello", tags: ["greeting"] },
        {
          id: "weather",
          input: [{ role: "user", content: [{ type: "text", text: "weather in Oslo?" }] }],
          expectedTrajectory: {
            called: ["lookup", { name: "lookup", arguments: { city: "Oslo" } }],
            notCalled: ["delete"],
          },
          expectedStructured: { city: "Oslo" },
          metadata: { difficulty: "easy" },
        },
      ],
      { name: "smoke" },
    );
    expect(dataset.name).toBe("smoke");
    expect(dataset.cases.map((c) => c.id)).toEqual(["case-1", "weather"]);
    expect(dataset.cases[1]?.expectedTrajectory?.called).toEqual([
      "lookup",
      { name: "lookup", arguments: { city: "Oslo" } },
    ]);
    expect(validateDataset({ name: "named", cases: [{ input: "x" }] }).name).toBe("named");
  });

  it.each([
    [[], "has no cases", "cases"],
    ["nope", "must be an array of cases", "cases"],
    [[{ id: "a" }], 'case 1 "a": field "input" is required', "input"],
    [[{ input: "   " }], 'field "input" is empty', "input"],
    [[{ input: "x", expeted: "y" }], 'field "expeted" is not a case field', "expeted"],
    [[{ input: "x", expected: 3 }], 'field "expected" must be a string', "expected"],
    [[{ input: "x", tags: ["a", 1] }], 'field "tags" must be an array of strings', "tags"],
    [[{ input: "x", metadata: [] }], 'field "metadata" must be a JSON object', "metadata"],
    [
      [{ input: [{ role: "robot", content: [] }] }],
      'field "input" is not a prompt string or valid messages',
      "input",
    ],
    [
      [{ input: "x", expectedTrajectory: { called: [3] } }],
      'field "expectedTrajectory.called[0]" must be a tool name',
      "expectedTrajectory.called[0]",
    ],
    [
      [{ input: "x", expectedTrajectory: { calls: [] } }],
      '"expectedTrajectory.calls" is not a trajectory field',
      "expectedTrajectory.calls",
    ],
    [
      [{ input: "x", expectedTrajectory: { modelCalls: -1 } }],
      "must be a non-negative integer",
      "expectedTrajectory.modelCalls",
    ],
    [
      [
        { id: "a", input: "x" },
        { id: "a", input: "y" },
      ],
      'case 2 "a": field "id" repeats the id of case 1',
      "id",
    ],
    [[{ input: "x" }, 42], "case 2: must be an object", "case"],
  ])("refuses %j with a message naming the case and field", (input, message, field) => {
    const error = thrownError(() => validateDataset(input, { name: "d" }));
    expect(error.code).toBe("validation");
    expect(error.message).toContain(message);
    expect(error.details?.field).toBe(field);
  });
});

describe("dataset files", () => {
  const dir = mkdtempSync(join(tmpdir(), "evals-dataset-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("parses JSONL (blank and // lines skipped) and names errors by line", () => {
    const text = '// smoke cases\n{"id":"a","input":"hi"}\n\n{"input":"there","expected":"x"}\n';
    const dataset = parseDataset(text, { file: "smoke.jsonl" });
    expect(dataset).toEqual({
      name: "smoke",
      cases: [
        { id: "a", input: "hi" },
        { id: "case-2", input: "there", expected: "x" },
      ],
    });
    const bad = thrownError(() => parseDataset('{"input":"ok"}\n{"input": 5}\n', { file: "bad.jsonl" }));
    expect(bad.message).toContain('dataset "bad" (bad.jsonl), case 2 "case-2" line 2: field "input"');
    expect(bad.details).toMatchObject({ line: 2, case: 2, field: "input" });
    const notJson = thrownError(() => parseDataset('{"input":"ok"}\n{input: nope}\n', { file: "bad.jsonl" }));
    expect(notJson.message).toContain("bad.jsonl, line 2 is not valid JSON");
  });

  it("loads .json and .jsonl files; a missing file is a storage error", async () => {
    writeFileSync(
      join(dir, "cases.json"),
      JSON.stringify({ name: "geo", cases: [{ input: "capital of France?", expected: "Paris" }] }),
    );
    writeFileSync(join(dir, "cases.jsonl"), '{"input":"a"}\n{"input":"b"}\n');
    expect((await loadDataset(join(dir, "cases.json"))).name).toBe("geo");
    const jsonl = await loadDataset(join(dir, "cases.jsonl"));
    expect(jsonl.name).toBe("cases");
    expect(jsonl.cases).toHaveLength(2);
    await expect(loadDataset(join(dir, "missing.jsonl"))).rejects.toMatchObject({ code: "storage" });
  });
});
