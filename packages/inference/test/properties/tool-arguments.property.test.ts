/**
 * Properties of tool-call reassembly and argument repair (fast-check, seeded globally):
 * - the OpenAI tool-call assembler (through `ChunkParser`, as the adapter uses it): any
 *   interleaving and fragmentation of N parallel calls reassembles to the same N calls;
 * - `ToolArgumentsBuffer`: the arguments do not depend on how their text was split;
 * - `repairArguments` / `parseToolArguments`: never throw, whatever the text; a valid JSON object
 *   passes unchanged; a repaired result always is the object its text parses to.
 */
import {
  ChunkParser,
  isJsonObject,
  type JsonObject,
  type ModelStreamItem,
  parseToolArguments,
  repairArguments,
  StreamAccumulator,
  ToolArgumentsBuffer,
} from "@tinyagents/inference";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** Tool arguments as a model sends them: a JSON object (no -0, which JSON cannot keep). */
const argumentsObject = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
  .map((o) => JSON.parse(JSON.stringify(o)) as JsonObject);

const call = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/),
  args: argumentsObject,
  /** Pretty-printed or compact argument text. */
  pretty: fc.boolean(),
});

/** Split `text` at `cuts` (positions, any order) into non-empty pieces; one piece when no cut applies. */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].filter((c) => c > 0 && c < text.length);
  points.sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(text.slice(start, point));
    start = point;
  }
  pieces.push(text.slice(start));
  return pieces.filter((p) => p !== "");
}

function parser(): ChunkParser {
  let n = 0;
  return new ChunkParser({
    provider: "openai",
    thinkTags: false,
    startsInReasoning: false,
    completionExcludesReasoning: false,
    generateToolCallId: () => `gen_${++n}`,
  });
}

describe("tool-call assembler properties", () => {
  it("any interleaving and fragmentation of N parallel calls reassembles to the same calls", () => {
    fc.assert(
      fc.property(
        fc.array(call, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.array(fc.nat({ max: 4 }), { maxLength: 200 }),
        fc.array(fc.boolean(), { maxLength: 200 }),
        (calls, cuts, schedule, grouping) => {
          // Each call's fragments, in order; the first carries the id and name (as OpenAI sends them).
          const queues = calls.map((c, index): JsonObject[] => {
            const text = c.pretty ? JSON.stringify(c.args, null, 2) : JSON.stringify(c.args);
            const pieces = split(text, cuts);
            return pieces.map((piece, k) =>
              k === 0
                ? {
                    index,
                    id: `call_${index}`,
                    type: "function",
                    function: { name: c.name, arguments: piece },
                  }
                : { index, function: { arguments: piece } },
            );
          });
          // Interleave: the schedule picks which call's next fragment goes next; leftovers in order.
          const order: JsonObject[] = [];
          for (const pick of schedule) {
            const queue = queues[pick % queues.length];
            const next = queue?.shift();
            if (next !== undefined) order.push(next);
          }
          for (const queue of queues) order.push(...queue.splice(0));
          // Group consecutive fragments of different calls into one delta when the coin says so.
          const deltas: JsonObject[][] = [];
          for (const [i, fragment] of order.entries()) {
            const current = deltas.at(-1);
            const sameCall = current?.some((f) => f.index === fragment.index) ?? true;
            if (current !== undefined && grouping[i] === true && !sameCall) current.push(fragment);
            else deltas.push([fragment]);
          }
          const p = parser();
          const items: ModelStreamItem[] = [];
          for (const tool_calls of deltas) {
            p.chunk({ id: "x", choices: [{ index: 0, delta: { tool_calls }, finish_reason: null }] }, items);
          }
          p.end(items);
          const accumulator = new StreamAccumulator();
          for (const item of items) accumulator.push(item);
          const rebuilt = accumulator.finish().message.toolCalls;

          // Output order is the order in which the calls first appeared.
          const firstSeen = [...new Set(order.map((f) => f.index as number))];
          expect(rebuilt.map((c) => c.id)).toEqual(firstSeen.map((i) => `call_${i}`));
          for (const [k, index] of firstSeen.entries()) {
            const original = calls[index];
            expect(rebuilt[k]?.name).toBe(original?.name);
            expect(rebuilt[k]?.arguments).toEqual(original?.args);
            expect(rebuilt[k]?.invalid).toBeUndefined();
          }
        },
      ),
    );
  });
});

describe("argument text properties", () => {
  const chunksOf = (text: string, cuts: readonly number[]) => {
    const buffer = new ToolArgumentsBuffer();
    let out = "";
    for (const piece of split(text, cuts)) out += buffer.push(piece);
    return out + buffer.finish();
  };

  /** Argument text as models produce it: valid, truncated, prose-wrapped, Python-ish, garbage. */
  const argumentText = fc.oneof(
    argumentsObject.map((o) => JSON.stringify(o)),
    argumentsObject.map((o) => ` \n${JSON.stringify(o, null, 1)}`),
    fc.tuple(argumentsObject, fc.nat()).map(([o, n]) => {
      const text = JSON.stringify(o);
      return text.slice(0, n % (text.length + 1));
    }),
    argumentsObject.map((o) => `Sure! Here you go: ${JSON.stringify(o)} hope that helps`),
    argumentsObject.map((o) => JSON.stringify(o).replace(/"/g, "'").replace(/true/g, "True")),
    argumentsObject.map((o) => JSON.stringify(JSON.stringify(o))),
    fc.string({ maxLength: 60 }),
    fc.string({
      unit: fc.constantFrom("{", "}", "[", "]", '"', "'", ",", ":", "a", "1", " ", "\\", "<|", "|>"),
    }),
  );

  it("the streamed argument text does not depend on how it was split", () => {
    fc.assert(
      fc.property(argumentText, fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
        expect(chunksOf(text, cuts)).toBe(chunksOf(text, []));
      }),
    );
  });

  it("a valid JSON object passes unchanged", () => {
    fc.assert(
      fc.property(
        argumentsObject,
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 20 }),
        (args, pretty, cuts) => {
          const text = pretty ? JSON.stringify(args, null, 2) : JSON.stringify(args);
          expect(chunksOf(text, cuts)).toBe(text);
          expect(parseToolArguments(text)).toEqual({ arguments: args });
          expect(repairArguments(text)?.value).toEqual(args);
        },
      ),
    );
  });

  it("repair and parsing never throw, and a repaired text is the object it claims", () => {
    fc.assert(
      fc.property(argumentText, (text) => {
        const repaired = repairArguments(text);
        if (repaired !== undefined) {
          expect(isJsonObject(repaired.value)).toBe(true);
          expect(JSON.parse(repaired.text)).toEqual(repaired.value);
        }
        const parsed = parseToolArguments(text);
        expect(isJsonObject(parsed.arguments)).toBe(true);
        if (parsed.invalid !== undefined) {
          expect(parsed.arguments).toEqual({});
          expect(parsed.invalid.raw).toBe(text);
          expect(typeof parsed.invalid.error).toBe("string");
        }
      }),
    );
  });
});
