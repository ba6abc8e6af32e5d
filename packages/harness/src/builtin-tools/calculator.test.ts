import { describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import type { ToolReturn } from "../tool/tool.js";
import { calculatorTool } from "./calculator.js";
import { evaluateExpression } from "./calculator-parser.js";

describe("evaluateExpression", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512],
    ["2 ** 10", 1024],
    ["-2 ^ 2", -4],
    ["2 ^ -1", 0.5],
    ["10 % 4", 2],
    ["--3", 3],
    [".5 + 1e1", 10.5],
    ["1_000 * 3", 3000],
    ["sqrt(16) + abs(-2)", 6],
    ["max(1, 5, 3) - min(4, 2)", 3],
    ["log(1000)", 3],
    ["log(8, 2)", 3],
    ["round(2.5) + floor(-1.5) + ceil(1.2)", 3],
    ["2 * pi", 2 * Math.PI],
    ["6 × 7 ÷ 2", 21],
  ])("%s = %d", (expr, expected) => {
    expect(evaluateExpression(expr)).toBeCloseTo(expected, 10);
  });

  it.each([
    ["", "empty"],
    ["1 +", "ends too early"],
    ["1 / 0", "division by zero"],
    ["2 $ 3", 'unexpected character "$"'],
    ["foo(1)", 'unknown function "foo"'],
    ["x + 1", 'unknown name "x"'],
    ["(1 + 2", 'expected ")"'],
    ["1 2", 'unexpected "2"'],
    ["sqrt(-1)", "not a finite number"],
    ["pow(1)", "takes 2 argument(s)"],
    ["constructor", "unknown name"],
    ["process.exit(1)", "unexpected character"],
    [`${"(".repeat(150)}1${")".repeat(150)}`, "nests deeper"],
  ])("refuses %j (%s)", (expr, message) => {
    expect(() => evaluateExpression(expr)).toThrow(message);
  });
});

describe("calculator tool", () => {
  const run = lowerLayer(new AgentHarness()).createContext({}, undefined);
  const exec = (expression: string) =>
    calculatorTool().execute(
      { expression },
      { state: undefined, run, callId: "c", signal: run.signal, progress: () => {} },
    );

  it("returns the result without float noise", async () => {
    expect(await exec("0.1 + 0.2")).toEqual({ expression: "0.1 + 0.2", result: 0.3 });
  });

  it("returns bad expressions as error results", async () => {
    const out = (await exec("1 / 0")) as ToolReturn;
    expect(out.isError).toBe(true);
    expect(out.content[0]).toEqual({ type: "text", text: 'cannot evaluate "1 / 0": division by zero' });
    expect(calculatorTool().policy).toEqual({ sideEffects: "none" });
  });
});
