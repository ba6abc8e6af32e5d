import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { CALCULATOR_NAMES, CalculatorError, evaluateExpression } from "./calculator-parser.js";
import { toolError } from "./tool-error.js";

/**
 * `calculator`: evaluate an arithmetic expression with a small built-in parser (never `eval`):
 * `+ - * / % ^` (or `**`), parentheses, constants and common functions. Returns
 * `{ expression, result }`; a bad expression is an error result saying where and why.
 * Policy: no side effects.
 */
export function calculatorTool(): Tool<unknown, unknown, JsonObject> {
  return tool({
    name: "calculator",
    description:
      "Evaluate an arithmetic expression exactly as written, e.g. `(19 + 23) * 2` or `sqrt(2) ^ 2`. " +
      `Operators: + - * / % ^ and parentheses. Constants: ${CALCULATOR_NAMES.constants.join(", ")}. ` +
      `Functions: ${CALCULATOR_NAMES.functions.join(", ")}.`,
    inputSchema: {
      type: "object",
      properties: { expression: { type: "string", description: "The expression to evaluate" } },
      required: ["expression"],
      additionalProperties: false,
    },
    policy: { sideEffects: "none" },
    idempotent: true,
    execute: (args) => {
      const expression = String(args.expression);
      try {
        const result = evaluateExpression(expression);
        // Drop binary floating-point noise (0.1 + 0.2 -> 0.3) without hiding real precision.
        return { expression, result: Number(result.toPrecision(15)) };
      } catch (error) {
        if (error instanceof CalculatorError)
          return toolError(`cannot evaluate ${JSON.stringify(expression)}: ${error.message}`);
        throw error;
      }
    },
  });
}
