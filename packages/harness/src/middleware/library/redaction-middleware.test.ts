import { type Message, type ToolMessage, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runText } from "../../agent-loop/agent-run.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { redactionMiddleware } from "./redaction-middleware.js";
import { DEFAULT_REDACTION_PATTERNS, luhn } from "./redaction-patterns.js";
import { TextRedactor } from "./text-redactor.js";

const toolMessages = (messages: Message[]) => messages.filter((m): m is ToolMessage => m.role === "tool");
const KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";

describe("redactionMiddleware", () => {
  it("redacts what is sent to the model, keeping the transcript intact", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["noted"]);
    const redaction = redactionMiddleware();
    harness.registerModel("m", model).use(redaction);
    const input = `I am bob@example.com and my key is ${KEY}`;
    const { run, error } = await runAgent(harness, input);
    expect(error).toBeUndefined();
    expect(text(model.requests[0]?.messages[0])).toBe(
      "I am [REDACTED:email] and my key is [REDACTED:api_key]",
    );
    expect(text(run.messages[0])).toBe(input);
    expect(redaction.redactions).toBe(2);
  });

  it("redacts streamed text deltas before consumers see them, and the stored answer", async () => {
    const { harness } = setup();
    // The address sits wholly in the second streamed piece.
    const answer = `${"x".repeat(40)} write to alice@example.org`;
    harness.registerModel("m", new ScriptedModel([answer])).use(redactionMiddleware());
    const { run, events } = await runAgent(harness, "hi", { streaming: true });
    const streamed = events
      .ofType("model.delta")
      .map((e) => (e.delta.type === "text_delta" ? e.delta.text : ""));
    expect(streamed.join("")).not.toContain("alice@example.org");
    expect(streamed.join("")).toContain("[REDACTED:email]");
    expect(runText(run)).toBe(`${"x".repeat(40)} write to [REDACTED:email]`);
  });

  it("catches a secret split across two deltas in the stored answer", async () => {
    const { harness } = setup();
    const answer = `${"y".repeat(10)} carol@example.com ${"z".repeat(9)}`; // the midpoint falls inside the address
    harness.registerModel("m", new ScriptedModel([answer])).use(redactionMiddleware());
    const { run } = await runAgent(harness, "hi", { streaming: true });
    expect(runText(run)).toBe(`${"y".repeat(10)} [REDACTED:email] ${"z".repeat(9)}`);
  });

  it("redacts tool results (text and JSON) before the model sees them", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([{ toolCalls: [{ name: "env" }, { name: "user" }] }, "done"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("env", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"))
      .registerTool(FakeTool.returning("user", { name: "Dan", contact: { email: "dan@example.net" } }))
      .use(redactionMiddleware());
    const { run } = await runAgent(harness, "hi");
    const [env, user] = toolMessages(run.messages);
    expect(text(env)).toBe("GITHUB_TOKEN=[REDACTED:github_token]");
    expect(user?.content).toEqual([
      { type: "json", value: { name: "Dan", contact: { email: "[REDACTED:email]" } } },
    ]);
  });

  it("supports custom patterns and masks; the card pattern is Luhn-checked", () => {
    const redactor = new TextRedactor(
      "redaction",
      [...DEFAULT_REDACTION_PATTERNS, { name: "order", pattern: /ORD-\d{6}/ }],
      () => "***",
    );
    expect(redactor.text("order ORD-123456, card 4111 1111 1111 1111, not a card 1234 5678 9012 3456")).toBe(
      "order ***, card ***, not a card 1234 5678 9012 3456",
    );
    expect(luhn("4111111111111111")).toBe(true);
    // Idempotent: masks are never matched again.
    const once = redactor.text(`key ${KEY}`);
    expect(redactor.text(once)).toBe(once);
  });

  it("rejects malformed patterns at construction", () => {
    expect(() => redactionMiddleware({ patterns: [{ name: "all", pattern: /x*/ }] })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "redaction", option: "patterns[0].pattern" },
      }),
    );
    expect(() => redactionMiddleware({ extraPatterns: [{ name: "bad", pattern: "abc" as never }] })).toThrow(
      /pattern/,
    );
    expect(() => redactionMiddleware({ patterns: [] })).toThrow(/at least one/);
  });
});
