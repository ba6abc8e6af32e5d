import { runText, tool } from "@tinyagents/harness";
import { runScript } from "@tinyagents/harness/testkit";
import { type JsonObject, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "./helpers.js";

/**
 * Issue 24 #8: arguments that violate `contains`, `dependentRequired`, `if`/`then`/`else` or
 * `propertyNames` must never reach a raw-JSON-Schema tool's `execute`; the model gets a
 * `validation` issue naming the path and what was wrong, and the loop goes on.
 */
// Parsed from JSON: a literal `then` key trips the thenable lint rule.
const conditional = JSON.parse(
  '{"if":{"properties":{"kind":{"const":"file"}},"required":["kind"]},"then":{"required":["path"]},"else":{"required":["url"]}}',
) as JsonObject;

const schema: JsonObject = {
  type: "object",
  properties: {
    kind: { enum: ["file", "web"] },
    path: { type: "string" },
    url: { type: "string" },
    card: { type: "string" },
    cvv: { type: "string" },
    tags: { type: "array", items: { type: "string" }, contains: { const: "urgent" } },
    labels: { type: "object", propertyNames: { pattern: "^[a-z]+$" } },
  },
  required: ["kind"],
  dependentRequired: { card: ["cvv"] },
  ...conditional,
};

const CASES: Array<{ keyword: string; args: JsonObject; issue: RegExp }> = [
  {
    keyword: "contains",
    args: { kind: "file", path: "a", tags: ["later"] },
    issue: /\$\.tags: .*contain/i,
  },
  {
    keyword: "dependentRequired",
    args: { kind: "file", path: "a", card: "4111" },
    issue: /\$\.cvv: missing property required when "card" is present/,
  },
  { keyword: "if/then", args: { kind: "file" }, issue: /\$\.path: missing required property/ },
  { keyword: "if/else", args: { kind: "web" }, issue: /\$\.url: missing required property/ },
  {
    keyword: "propertyNames",
    args: { kind: "file", path: "a", labels: { Bad: "x" } },
    issue: /\$\.labels\.Bad: property name "Bad" does not match "propertyNames"/,
  },
];

describe("schema keywords are enforced before execute (issue 24 #8)", () => {
  for (const { keyword, args, issue } of CASES) {
    it(`${keyword}: the violating call never runs; the model is told what was wrong`, async () => {
      const seen: JsonObject[] = [];
      const open = tool({
        name: "open",
        description: "Open a file or a web page",
        inputSchema: schema,
        execute: (input) => {
          seen.push(input);
          return "opened";
        },
      });
      const { run, events } = await runScript({
        script: [{ toolCalls: [{ name: "open", arguments: args, id: "c1" }] }, "final"],
        tools: [open],
      });
      expect(seen).toEqual([]);
      expect(runText(run)).toBe("final");
      const [result] = toolMessages(run.messages);
      expect(result?.isError).toBe(true);
      expect(text(result)).toMatch(issue);
      expect(events.ofType("tool.invalid_args")[0]?.error).toMatch(issue);
    });
  }

  it("a call that satisfies every keyword runs", async () => {
    const seen: JsonObject[] = [];
    const open = tool({
      name: "open",
      description: "Open a file or a web page",
      inputSchema: schema,
      execute: (input) => {
        seen.push(input);
        return "opened";
      },
    });
    const args = { kind: "file", path: "a", card: "4111", cvv: "123", tags: ["urgent"], labels: { ok: "x" } };
    const { run } = await runScript({
      script: [{ toolCalls: [{ name: "open", arguments: args, id: "c1" }] }, "final"],
      tools: [open],
    });
    expect(seen).toEqual([args]);
    expect(toolMessages(run.messages)[0]?.isError).toBeFalsy();
  });
});
