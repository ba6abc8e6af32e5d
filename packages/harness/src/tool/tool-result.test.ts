import { describe, expect, it } from "vitest";
import type { ToolResult } from "./tool.js";
import {
  errorToolResult,
  isToolReturn,
  resultSizeBytes,
  toolResultMessage,
  toToolResult,
} from "./tool-result.js";

describe("toToolResult", () => {
  it("turns a string into a text block", () => {
    expect(toToolResult("sunny", "c1", "weather", 12)).toEqual({
      callId: "c1",
      toolName: "weather",
      content: [{ type: "text", text: "sunny" }],
      isError: false,
      elapsedMs: 12,
    });
  });

  it("turns other JSON values into a json block", () => {
    for (const value of [null, 0, false, [1, "a"], { a: { b: [null] } }]) {
      const result = toToolResult(value, "c1", "t", 1);
      expect(result.content).toEqual([{ type: "json", value }]);
      expect(result.isError).toBe(false);
    }
  });

  it("passes a ToolReturn through", () => {
    const ret = {
      kind: "tool_return" as const,
      content: [{ type: "text" as const, text: "nope" }],
      isError: true,
      raw: { code: 7 },
    };
    expect(toToolResult(ret, "c2", "t", 3)).toEqual({
      callId: "c2",
      toolName: "t",
      content: ret.content,
      isError: true,
      raw: { code: 7 },
      elapsedMs: 3,
    });
    const plain = toToolResult({ kind: "tool_return", content: [] }, "c3", "t", 0);
    expect(plain.isError).toBe(false);
    expect("raw" in plain).toBe(false);
  });

  it("allows shared (non-cyclic) references", () => {
    const shared = { x: 1 };
    expect(toToolResult({ a: shared, b: shared }, "c", "t", 0).isError).toBe(false);
  });

  it.each([
    ["undefined", undefined, "$ is undefined (the tool returned nothing)"],
    ["a function", () => 1, "$ is a function"],
    ["a nested function", { f: () => 1 }, "$.f is a function"],
    ["a bigint", { n: 10n }, "$.n is a bigint (10n)"],
    ["a symbol", [Symbol("s")], "$[0] is a symbol"],
    ["NaN", { x: Number.NaN }, "$.x is NaN"],
    ["Infinity", [Number.POSITIVE_INFINITY], "$[0] is Infinity"],
    ["an undefined property", { a: undefined }, "$.a is undefined"],
    ["a Date", { at: new Date(0) }, "$.at is a Date instance, not a plain object (use toISOString())"],
    ["a Map", new Map(), "$ is a Map instance"],
  ])("turns %s into an error result", (_label, value, problem) => {
    const result = toToolResult(value, "c1", "t", 5);
    expect(result.isError).toBe(true);
    expect(result.elapsedMs).toBe(5);
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    expect(text).toContain('tool "t" returned a non-JSON value');
    expect(text).toContain(problem);
  });

  it("detects cycles", () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    const list: unknown[] = [];
    list.push(list);
    for (const value of [a, list]) {
      const result = toToolResult(value, "c", "t", 0);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("a cycle");
    }
  });

  it("rejects malformed or non-JSON ToolReturns", () => {
    const noContent = toToolResult({ kind: "tool_return" }, "c", "t", 0);
    expect(JSON.stringify(noContent.content)).toContain("without a `content` array");
    const badBlock = toToolResult({ kind: "tool_return", content: ["x"] }, "c", "t", 0);
    expect(JSON.stringify(badBlock.content)).toContain("content[0]");
    const badRaw = toToolResult({ kind: "tool_return", content: [], raw: { f: () => 1 } }, "c", "t", 0);
    expect(JSON.stringify(badRaw.content)).toContain("$.raw.f is a function");
    const badFlag = toToolResult({ kind: "tool_return", content: [], isError: "yes" }, "c", "t", 0);
    expect(badFlag.isError).toBe(true);
    expect(isToolReturn({ kind: "tool_return", content: [] })).toBe(true);
    expect(isToolReturn({ kind: "tool_return" })).toBe(false);
    expect(isToolReturn("x")).toBe(false);
  });

  it("produces results that survive a JSON round trip", () => {
    for (const output of ["s", { a: [1, null] }, undefined, { kind: "tool_return", content: [], raw: 1 }]) {
      const result = toToolResult(output, "c", "t", 1);
      expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    }
  });
});

describe("errorToolResult and toolResultMessage", () => {
  it("builds an error result and the tool message answering the call", () => {
    const result = errorToolResult("c9", "search", "tool timed out after 5000 ms", 5001);
    expect(result).toEqual({
      callId: "c9",
      toolName: "search",
      content: [{ type: "text", text: "tool timed out after 5000 ms" }],
      isError: true,
      elapsedMs: 5001,
    });
    expect(toolResultMessage(result)).toEqual({
      role: "tool",
      toolCallId: "c9",
      toolName: "search",
      content: result.content,
      isError: true,
    });
  });
});

describe("resultSizeBytes", () => {
  const base: Omit<ToolResult, "content"> = { callId: "c", toolName: "t", isError: false, elapsedMs: 0 };

  it("counts UTF-8 bytes of text and json blocks", () => {
    expect(resultSizeBytes({ ...base, content: [{ type: "text", text: "abc" }] })).toBe(3);
    expect(resultSizeBytes({ ...base, content: [{ type: "text", text: "é€😀" }] })).toBe(2 + 3 + 4);
    expect(resultSizeBytes({ ...base, content: [{ type: "json", value: { a: "é" } }] })).toBe(
      Buffer.byteLength(JSON.stringify({ a: "é" })),
    );
    expect(
      resultSizeBytes({
        ...base,
        content: [
          { type: "text", text: "ab" },
          { type: "image", source: { kind: "url", url: "https://x" } },
          { type: "json", value: [1] },
        ],
      }),
    ).toBe(5);
  });

  it("matches Buffer.byteLength, including lone surrogates", () => {
    for (const text of ["", "plain", "\u{10FFFF}", "\ud800x", "x\udc00", "\ud800"]) {
      expect(resultSizeBytes({ ...base, content: [{ type: "text", text }] })).toBe(
        Buffer.byteLength(text, "utf8"),
      );
    }
  });
});
