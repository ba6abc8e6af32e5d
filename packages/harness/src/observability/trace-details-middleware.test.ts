import { assistant, type ModelRequest, system, type ToolSchema, user } from "@tinyagents/inference";
import { describe, expect, it, vi } from "vitest";
import { stablePrefixFingerprint, writePromptPrefix } from "../cache/prompt-fingerprint.js";
import { StablePrefixMemo } from "./trace-details-middleware.js";

vi.mock("../cache/prompt-fingerprint.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../cache/prompt-fingerprint.js")>();
  return { ...actual, writePromptPrefix: vi.fn(actual.writePromptPrefix) };
});

const tool: ToolSchema = { name: "lookup", description: "Find a thing.", parameters: { type: "object" } };

describe("StablePrefixMemo (the stable-prefix fingerprint of trace details)", () => {
  it("answers as stablePrefixFingerprint over a run's requests, whatever changed between them", () => {
    const tools = Object.freeze([tool]) as ToolSchema[];
    const instructions = system("be brief");
    const call = assistant("", [{ id: "c1", name: "lookup", arguments: { q: "x" } }]);
    const loose: ToolSchema[] = [tool];
    const requests: ModelRequest[] = [
      { messages: [instructions, user("hi")], tools },
      { messages: [instructions, user("hi"), call, user("more")], tools },
      // Another system message object, the same text; then another text.
      { messages: [system("be brief"), user("hi")], tools },
      { messages: [system("be thorough"), user("hi")], tools },
      { messages: [instructions, user("hi")] },
      {
        messages: [instructions, user("hi"), call, user("more")],
        tools,
        cacheSegments: [
          { id: "sys", role: "system", messageCount: 1, cacheable: true },
          { id: "docs", role: "instructions", messageCount: 1, cacheable: true },
          { id: "h", role: "history", messageCount: 2, cacheable: true },
        ],
      },
      { messages: [instructions, user("hi")], tools: loose },
      // The default layout at its edges: only system messages, a system message after the user's,
      // an empty frozen tool list, a second leading system message.
      { messages: [instructions], tools },
      { messages: [user("hi"), system("late")], tools },
      { messages: [instructions, user("hi")], tools: Object.freeze([] as ToolSchema[]) as ToolSchema[] },
      { messages: [instructions, system("more"), user("hi"), call, user("more")], tools },
      { messages: [instructions, user("hi")], tools },
    ];
    const memo = new StablePrefixMemo();
    for (const request of requests) expect(memo.of(request)).toBe(stablePrefixFingerprint(request));
    // An unfrozen tool list edited in place is hashed again.
    loose.push({ ...tool, name: "other" });
    const edited: ModelRequest = { messages: [instructions, user("hi")], tools: loose };
    expect(memo.of(edited)).toBe(stablePrefixFingerprint(edited));
  });

  it("hashes once while the tools and the stable messages stay the same objects", () => {
    const tools = Object.freeze([tool]) as ToolSchema[];
    const instructions = system("be brief");
    const call = assistant("", [{ id: "c1", name: "lookup", arguments: { q: "x" } }]);
    const memo = new StablePrefixMemo();
    const hashed = vi.mocked(writePromptPrefix);
    hashed.mockClear();
    const first = memo.of({ messages: [instructions, user("hi")], tools });
    const second = memo.of({ messages: [instructions, user("hi"), call, user("more")], tools });
    expect(second).toBe(first);
    expect(hashed).toHaveBeenCalledTimes(1);
    memo.of({ messages: [system("be brief"), user("hi")], tools });
    expect(hashed).toHaveBeenCalledTimes(2);
  });
});
