import { assistant, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { PromptCacheLayout } from "../cache/prompt-cache-layout.js";
import { promptFingerprint } from "../cache/prompt-fingerprint.js";
import { PromptBuilder } from "./prompt-builder.js";

const tool = { name: "search", description: "search the web", parameters: { type: "object" } };

describe("PromptBuilder", () => {
  const builder = () =>
    new PromptBuilder()
      .pushSystem("You are a support agent.")
      .pushToolsSegment([tool])
      .pushInstructions("Refund policy: 30 days.")
      .pushHistory([user("my order is late"), assistant("Sorry! Checking.")]);

  it("builds messages, tools, cache segments and the fingerprint of the cacheable prefix", () => {
    const request = builder().pushVolatile("Now: 2026-01-01T00:00:00Z").build("Any news?");
    expect(request.messages.map((m) => m.role)).toEqual([
      "system",
      "system",
      "user",
      "assistant",
      "system",
      "user",
    ]);
    expect(request.tools).toEqual([tool]);
    expect(request.cacheSegments).toEqual([
      { id: "system", role: "system", cacheable: true, messageCount: 1 },
      { id: "tools", role: "tools", cacheable: true, messageCount: 0 },
      { id: "instructions", role: "instructions", cacheable: true, messageCount: 1 },
      { id: "history", role: "history", cacheable: true, messageCount: 2 },
      { id: "volatile", role: "volatile", cacheable: false, messageCount: 1 },
      { id: "tail", role: "volatile", cacheable: false, messageCount: 1 },
    ]);
    expect(request.promptFingerprint).toBe(promptFingerprint(request));
    expect(PromptCacheLayout.fromRequest(request).prefixIds()).toEqual([
      "system",
      "tools",
      "instructions",
      "history",
    ]);
  });

  it("volatile content and the tail never change the fingerprint; stable content does", () => {
    const a = builder().pushVolatile("Now: 1").build("x");
    const b = builder().pushVolatile("Now: 2").build("y");
    expect(a.promptFingerprint).toBe(b.promptFingerprint);
    expect(builder().fingerprint()).toBe(a.promptFingerprint);
    const c = new PromptBuilder().pushSystem("You are a sales agent.").pushToolsSegment([tool]).build();
    expect(c.promptFingerprint).not.toBe(a.promptFingerprint);
  });

  it("rejects duplicate ids and stable segments after volatile ones", () => {
    expect(() => new PromptBuilder().pushSystem("a", { id: "x" }).pushInstructions("b", { id: "x" })).toThrow(
      /already used/,
    );
    expect(() => new PromptBuilder().pushVolatile("now").pushInstructions("policy")).toThrow(
      /after a volatile segment/,
    );
    const ids = new PromptBuilder()
      .pushInstructions("a")
      .pushInstructions("b")
      .cacheSegments()
      .map((s) => s.id);
    expect(ids).toEqual(["instructions", "instructions-2"]);
  });
});
