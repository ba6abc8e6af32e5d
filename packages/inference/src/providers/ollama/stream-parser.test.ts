import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../json/json-value.js";
import { collectStream } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { parseOllamaResponse } from "./parse-response.js";
import { OllamaStreamParser } from "./stream-parser.js";
import { ollamaToolCallId } from "./tool-calls.js";

function run(lines: JsonValue[], salt = 3): ModelStreamItem[] {
  const parser = new OllamaStreamParser(salt);
  const items: ModelStreamItem[] = [];
  for (const line of lines) items.push(...parser.push(line));
  items.push(...parser.end());
  return items;
}

const done = {
  model: "m",
  message: { role: "assistant", content: "" },
  done: true,
  done_reason: "stop",
  eval_count: 2,
};

describe("OllamaStreamParser", () => {
  it("synthesizes the same stable ids as the unary parser, salted by the conversation length", async () => {
    const call = { function: { name: "f", arguments: { a: 1 } } };
    const streamed = await collectStream(
      run([
        { model: "m", message: { role: "assistant", content: "", tool_calls: [call, call] }, done: false },
        done,
      ]),
    );
    const unary = parseOllamaResponse(
      { ...done, message: { role: "assistant", content: "", tool_calls: [call, call] } },
      "m",
      3,
    );
    expect(streamed.message.toolCalls).toEqual(unary.message.toolCalls);
    const [first, second] = streamed.message.toolCalls;
    expect(first?.id).toMatch(/^call_[0-9a-f]{8}$/);
    expect(first?.id).not.toBe(second?.id);
    expect(first?.id).toBe(ollamaToolCallId(3, 0, "f", '{"a":1}'));
    expect(ollamaToolCallId(5, 0, "f", '{"a":1}')).not.toBe(first?.id);
    expect(streamed.finishReason).toBe("tool_calls");
  });

  it("reads string arguments as JSON text and reports unparseable ones as invalid", async () => {
    const response = await collectStream(
      run([
        {
          message: {
            role: "assistant",
            content: "",
            tool_calls: [
              { function: { name: "g", arguments: '{"x":2}' } },
              { function: { name: "h", arguments: "{oops" } },
            ],
          },
          done: false,
        },
        done,
      ]),
    );
    expect(response.message.toolCalls[0]?.arguments).toEqual({ x: 2 });
    expect(response.message.toolCalls[1]?.invalid?.raw).toBe("{oops");
  });

  it("ends with a retryable error when the done line never comes, and ignores lines after done", () => {
    expect(run([{ message: { role: "assistant", content: "x" }, done: false }]).at(-1)).toMatchObject({
      type: "error",
      retryable: true,
    });
    const parser = new OllamaStreamParser(0);
    expect(parser.push(done).map((i) => i.type)).toEqual(["start", "usage", "finish"]);
    expect(parser.push({ message: { role: "assistant", content: "late" }, done: false })).toEqual([]);
  });

  it("treats an error line as retryable unless the context overflowed", () => {
    expect(run([{ error: "llama runner process has terminated" }])).toEqual([
      {
        type: "error",
        message: "Ollama stream error: llama runner process has terminated",
        retryable: true,
        kind: "retryable",
        provider: "ollama",
      },
    ]);
    expect(run([{ error: "the input exceeds the context window of this model" }]).at(-1)).toMatchObject({
      retryable: false,
    });
  });
});
