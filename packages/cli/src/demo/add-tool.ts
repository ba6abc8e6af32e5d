import { tool } from "@tinyagents/harness";

/** A tiny tool for the demo: sums a list of numbers. */
export const addTool = tool({
  name: "add",
  description: "Add a list of numbers and return the sum.",
  inputSchema: {
    type: "object",
    properties: { numbers: { type: "array", items: { type: "number" }, minItems: 1 } },
    required: ["numbers"],
    additionalProperties: false,
  },
  execute: (args) => {
    const numbers = args.numbers as number[];
    return String(numbers.reduce((sum, n) => sum + n, 0));
  },
});
