import { assistant, type ModelRequest, system, type ToolSchema, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { prefixChange, prefixLayout } from "./prefix-fingerprint.js";

const tool: ToolSchema = { name: "t", description: "d", parameters: { type: "object" } };

describe("prefixLayout", () => {
  it("without segments: tools, leading system messages, history before the last user turn", () => {
    const request: ModelRequest = {
      messages: [system("sys"), user("old"), assistant("old answer"), user("new"), assistant("tail")],
      tools: [tool],
    };
    expect(prefixLayout(request).parts.map((p) => p.id)).toEqual(["tools", "system", "history"]);
  });

  it("ignores the volatile tail: appending after the last user turn keeps the fingerprint", () => {
    const base: ModelRequest = { messages: [system("sys"), user("q")] };
    const tail: ModelRequest = { messages: [...base.messages, system("dynamic note")] };
    expect(prefixChange(prefixLayout(base), prefixLayout(tail))).toBeUndefined();
  });

  it("names the first changed part in prefix order", () => {
    const before = prefixLayout({ messages: [system("a"), user("q")], tools: [tool] });
    const after = prefixLayout({ messages: [system("b"), user("q")], tools: [tool] });
    expect(prefixChange(before, after)).toEqual({
      segment: "system",
      before: before.fingerprint,
      after: after.fingerprint,
    });
    const noTools = prefixLayout({ messages: [system("a"), user("q")] });
    expect(prefixChange(before, noTools)?.segment).toBe("tools");
    expect(prefixChange(noTools, before)?.segment).toBe("tools");
  });

  it("with cache segments: only cacheable segments count, each under its id", () => {
    const request = (volatile: string): ModelRequest => ({
      messages: [system("sys"), user("ctx"), user(volatile)],
      cacheSegments: [
        { id: "sys", role: "system", cacheable: true, messageCount: 1 },
        { id: "docs", role: "history", cacheable: true, messageCount: 1 },
        { id: "turn", role: "volatile", cacheable: false, messageCount: 1 },
      ],
    });
    const a = prefixLayout(request("one"));
    expect(a.parts.map((p) => p.id)).toEqual(["sys", "docs"]);
    expect(prefixChange(a, prefixLayout(request("two")))).toBeUndefined();
    const edited = request("one");
    edited.messages[1] = user("other ctx");
    expect(prefixChange(a, prefixLayout(edited))?.segment).toBe("docs");
  });

  it("hashes a frozen tool array once and stays stable", () => {
    const frozen = Object.freeze([tool]) as ToolSchema[];
    const first = prefixLayout({ messages: [user("q")], tools: frozen });
    const second = prefixLayout({ messages: [user("q")], tools: frozen });
    expect(second).toEqual(first);
  });
});
