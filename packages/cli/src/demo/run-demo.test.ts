import { describe, expect, it } from "vitest";
import { runDemo } from "./run-demo.js";

describe("offline demo", () => {
  it("streams a tool-using run and prints an honest summary", async () => {
    let out = "";
    const code = await runDemo("add 19 and 23", { write: (chunk) => (out += chunk) });
    expect(code).toBe(0);
    expect(out).toContain("not an LLM");
    expect(out).toContain('-> add({"numbers":[19,23]}) ok');
    expect(out).toContain("The sum is 42.");
    expect(out).toMatch(/model calls: 2 {3}tool calls: 1/);
  });
});
