import { describe, expect, it } from "vitest";
import { runDemo } from "./run-demo.js";

describe("offline demo", () => {
  it("streams a scripted multi-step run with tools, a sub-agent and structured output, then an honest summary", async () => {
    let out = "";
    const code = await runDemo(undefined, { write: (chunk) => (out += chunk) }, { delayMs: 0 });
    expect(code).toBe(0);
    expect(out).toContain("SCRIPTED");
    expect(out).toContain("not an LLM");
    expect(out).toMatch(/-> current_time\(\{"timezone":"Asia\/Tokyo"\}\) ok in \d+ ms/);
    expect(out).toMatch(/-> calculator\(\{"expression":"\(19 \+ 23\) \* 2"\}\) ok/);
    expect(out).toContain("=> sub-agent research started");
    expect(out).toMatch(/<= sub-agent research done/);
    expect(out).toContain('"result": 84');
    expect(out).toMatch(/model calls: 3 {3}tool calls: 3 {3}sub-agent runs: 1/);
    expect(out).toMatch(/cost: \$0\.000000/);
  });
});
