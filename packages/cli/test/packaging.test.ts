import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// These tests run against the BUILT packages (`npm test` builds before running Vitest).
const root = fileURLToPath(new URL("../../..", import.meta.url));

function importInPlainNode(code: string): string {
  // A plain Node process: no TypeScript loader, resolution through node_modules and `exports`.
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const importsHarness = (file: string) =>
  /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']@tinyagents\/harness/.test(readFileSync(file, "utf8"));

describe("built packages", () => {
  it("import in a plain Node process through their exports maps", () => {
    const out = importInPlainNode(`
      const inference = await import("@tinyagents/inference");
      const harness = await import("@tinyagents/harness");
      const testkit = await import("@tinyagents/harness/testkit");
      console.log(JSON.stringify({
        user: inference.user("hi"),
        harness: typeof harness.AgentHarness,
        scripted: typeof testkit.ScriptedModel,
      }));
    `);
    expect(JSON.parse(out)).toEqual({
      user: { role: "user", content: [{ type: "text", text: "hi" }] },
      harness: "function",
      scripted: "function",
    });
  });

  it("run an agent end to end from dist", () => {
    const out = importInPlainNode(`
      const { AgentHarness, runText } = await import("@tinyagents/harness");
      const { ScriptedModel } = await import("@tinyagents/harness/testkit");
      const h = new AgentHarness().registerModel("m", new ScriptedModel(["hello from dist"]));
      const run = await h.invokeDefault(undefined, "hi");
      console.log(runText(run));
    `);
    expect(out.trim()).toBe("hello from dist");
  });

  it("the tools and mcp subpaths import in plain Node, and the core never loads the MCP SDK", () => {
    const out = importInPlainNode(`
      const tools = await import("@tinyagents/harness/tools");
      const mcp = await import("@tinyagents/harness/mcp");
      console.log(JSON.stringify({ calc: tools.evaluateExpression("6 * 7"), load: typeof mcp.loadMcpTools }));
    `);
    expect(JSON.parse(out)).toEqual({ calc: 42, load: "function" });
    const core = filesUnder(join(root, "packages/harness/dist"))
      .filter((f) => f.endsWith(".js") && !f.includes("/mcp/"))
      .filter((f) => readFileSync(f, "utf8").includes("@modelcontextprotocol/sdk"));
    expect(core).toEqual([]);
  });

  it("@tinyagents/inference never imports @tinyagents/harness", () => {
    const dist = join(root, "packages/inference/dist");
    const offenders = filesUnder(dist)
      .filter((f) => f.endsWith(".js") || f.endsWith(".d.ts"))
      .filter(importsHarness);
    // The detector itself works: the CLI's build does import the harness.
    expect(importsHarness(join(root, "packages/cli/dist/demo/run-demo.js"))).toBe(true);
    expect(filesUnder(dist).length).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(root, "packages/inference/package.json"), "utf8"));
    expect(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })).not.toContain(
      "@tinyagents/harness",
    );
  });

  it("the runtime core has no dependency beyond the documented ones", () => {
    const harness = JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8"));
    expect(Object.keys(harness.dependencies).sort()).toEqual([
      "@standard-schema/spec",
      "@tinyagents/inference",
    ]);
  });
});
