import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../json/json-value.js";
import { StreamAccumulator } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import type { ToolCall } from "../../tool/tool-call.js";
import { ToolCallAssembler } from "./tool-call-assembler.js";

function assemble(deltas: JsonValue[][]): { items: ModelStreamItem[]; calls: ToolCall[] } {
  let n = 0;
  const assembler = new ToolCallAssembler({ generateId: () => `gen_${n++}` });
  const items: ModelStreamItem[] = [];
  for (const delta of deltas) assembler.push(delta, items);
  assembler.finish(items);
  const accumulator = new StreamAccumulator();
  for (const item of items) accumulator.push(item);
  return { items, calls: accumulator.finish().message.toolCalls };
}

const fn = (name: string | undefined, args: string | undefined): JsonValue => {
  const f: Record<string, JsonValue> = {};
  if (name !== undefined) f.name = name;
  if (args !== undefined) f.arguments = args;
  return f;
};

describe("ToolCallAssembler", () => {
  it("keys OpenAI fragments by index, interleaved", () => {
    const { calls, items } = assemble([
      [{ index: 0, id: "call_a", type: "function", function: fn("get_weather", "") }],
      [{ index: 0, function: fn(undefined, '{"ci') }],
      [{ index: 1, id: "call_b", type: "function", function: fn("get_time", "") }],
      [{ index: 0, function: fn(undefined, 'ty":"Paris"}') }],
      [{ index: 1, function: fn(undefined, '{"tz":"CET"}') }],
    ]);
    expect(calls).toEqual([
      { id: "call_a", name: "get_weather", arguments: { city: "Paris" } },
      { id: "call_b", name: "get_time", arguments: { tz: "CET" } },
    ]);
    expect(items[0]).toEqual({ type: "tool_call_delta", index: 0, id: "call_a", name: "get_weather" });
    expect(items[1]).toEqual({ type: "tool_call_delta", index: 0, argumentsDelta: '{"ci' });
  });

  it("uses the array position when there is no index (Mistral whole calls)", () => {
    const { calls } = assemble([
      [
        { id: "abcDEF123", function: fn("a", '{"x":1}') },
        { id: "ghiJKL456", function: fn("b", '{"y":2}') },
      ],
    ]);
    expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ["abcDEF123", "a", { x: 1 }],
      ["ghiJKL456", "b", { y: 2 }],
    ]);
  });

  it("opens a new slot when a different id arrives at the same index (Ollama parallel calls at 0)", () => {
    const { calls } = assemble([
      [{ index: 0, id: "call_1", function: fn("a", '{"x":1}') }],
      [{ index: 0, id: "call_2", function: fn("b", '{"y":2}') }],
      [{ index: 0, function: fn(undefined, "") }],
    ]);
    expect(calls.map((c) => c.id)).toEqual(["call_1", "call_2"]);
    expect(calls[1]?.arguments).toEqual({ y: 2 });
  });

  it("does not duplicate a call when a trailing empty fragment repeats it (vLLM)", () => {
    const { calls } = assemble([
      [{ index: 0, id: "chatcmpl-tool-1", type: "function", function: fn("a", '{"x":1}') }],
      [{ index: 0, id: "chatcmpl-tool-1", function: fn(undefined, "") }],
    ]);
    expect(calls).toHaveLength(1);
  });

  it("first non-empty name wins; empty arguments become {}; object arguments are serialized", () => {
    const { calls } = assemble([
      [{ index: 0, id: "c1", function: fn("", "") }],
      [{ index: 0, function: fn("real_name", "") }],
      [{ index: 0, function: fn("other_name", "") }],
      [{ index: 1, id: "c2", function: { name: "obj", arguments: { a: [1] } } }],
    ]);
    expect(calls).toEqual([
      { id: "c1", name: "real_name", arguments: {} },
      { id: "c2", name: "obj", arguments: { a: [1] } },
    ]);
  });

  it("generates ids for calls without one, and a nameless whole call never merges into a complete one", () => {
    const { calls } = assemble([[{ function: fn("a", '{"x":1}') }], [{ function: fn("", '{"y":2}') }]]);
    expect(calls).toEqual([
      { id: "gen_0", name: "a", arguments: { x: 1 } },
      { id: "gen_1", name: "", arguments: { y: 2 } },
    ]);
  });

  it("drops slots with neither name nor arguments", () => {
    expect(assemble([[{ index: 0, id: "c", function: fn("", "") }]]).calls).toEqual([]);
  });

  it("repairs broken arguments and keeps hopeless ones as invalid calls", () => {
    const { calls } = assemble([
      [{ index: 0, id: "c1", function: fn("a", "{'x': 1,}") }],
      [{ index: 1, id: "c2", function: fn("b", '{"q":"x"}<|call|>') }],
      [{ index: 2, id: "c3", function: fn("c", "nope") }],
    ]);
    expect(calls[0]?.arguments).toEqual({ x: 1 });
    expect(calls[1]?.arguments).toEqual({ q: "x" });
    expect(calls[2]).toMatchObject({ id: "c3", arguments: {}, invalid: { raw: "nope" } });
  });
});
