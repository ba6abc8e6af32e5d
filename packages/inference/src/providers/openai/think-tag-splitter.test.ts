import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type SplitPiece, ThinkTagSplitter } from "./think-tag-splitter.js";

function split(pieces: string[], startsInReasoning = false): SplitPiece[] {
  const splitter = new ThinkTagSplitter({ startsInReasoning });
  const out: SplitPiece[] = [];
  for (const piece of pieces) splitter.push(piece, out);
  splitter.flush(out);
  // Merge neighbours so results compare independently of fragmentation.
  const merged: SplitPiece[] = [];
  for (const piece of out) {
    const last = merged.at(-1);
    if (last !== undefined && last.reasoning === piece.reasoning) last.text += piece.text;
    else merged.push({ ...piece });
  }
  return merged;
}

describe("ThinkTagSplitter", () => {
  it("splits reasoning out of the text and drops whitespace after tags", () => {
    expect(split(["<think>\nLet me see.\n</think>\n\nThe answer is 4."])).toEqual([
      { reasoning: true, text: "Let me see.\n" },
      { reasoning: false, text: "The answer is 4." },
    ]);
  });

  it("handles tags split across chunks", () => {
    expect(split(["<th", "ink>ab", "c</thi", "nk>done"])).toEqual([
      { reasoning: true, text: "abc" },
      { reasoning: false, text: "done" },
    ]);
  });

  it("releases look-alikes as text", () => {
    expect(split(["a <thinker> b <th", "x"])).toEqual([{ reasoning: false, text: "a <thinker> b <thx" }]);
    expect(split(["ends with <thi"])).toEqual([{ reasoning: false, text: "ends with <thi" }]);
  });

  it("supports templates that start inside the think block, and several blocks", () => {
    expect(split(["planning</think>answer"], true)).toEqual([
      { reasoning: true, text: "planning" },
      { reasoning: false, text: "answer" },
    ]);
    expect(split(["<think>a</think>b<think>c</think>d"])).toEqual([
      { reasoning: true, text: "a" },
      { reasoning: false, text: "b" },
      { reasoning: true, text: "c" },
      { reasoning: false, text: "d" },
    ]);
  });

  it("is independent of fragmentation (property)", () => {
    const samples = [
      "<think>\nx y\n</think>\n\nHello <b>world</b>",
      "plain text <t <th <thi",
      "<think>unclosed reasoning",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
        (text, cuts) => {
          const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
          const pieces: string[] = [];
          let start = 0;
          for (const point of points) {
            pieces.push(text.slice(start, point));
            start = point;
          }
          pieces.push(text.slice(start));
          expect(split(pieces)).toEqual(split([text]));
        },
      ),
    );
  });
});
