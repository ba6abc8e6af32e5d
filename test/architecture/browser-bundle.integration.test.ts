import { fileURLToPath } from "node:url";
import * as vm from "node:vm";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Bundle an entry for a browser with esbuild and list every Node built-in it imports (with the
 * importing file). Node built-ins are marked external instead of failing the build at the first
 * one, so the test names all of them at once.
 */
async function nodeImportsOf(entry: string): Promise<{ imports: string[]; bytes: number }> {
  const imports: string[] = [];
  const builtins = new Set([
    "fs",
    "os",
    "path",
    "crypto",
    "url",
    "util",
    "events",
    "stream",
    "child_process",
  ]);
  const catchNode: Plugin = {
    name: "catch-node-builtins",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path.replace(/^node:/, "").split("/")[0] ?? "";
        if (!args.path.startsWith("node:") && !builtins.has(bare)) return undefined;
        imports.push(`${args.importer.slice(repo.length)} -> ${args.path}`);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    target: "es2022",
    logLevel: "silent",
    alias: { "@tinyagents/inference": `${repo}packages/inference/src/index.ts` },
    plugins: [catchNode],
  });
  return { imports, bytes: result.outputFiles[0]?.contents.byteLength ?? 0 };
}

describe("browser bundle", () => {
  it("the harness root bundles for a browser with no node: import", { timeout: 120_000 }, async () => {
    const { imports, bytes } = await nodeImportsOf(`${repo}packages/harness/src/index.ts`);
    // On failure: reach the Node-only code through @tinyagents/harness/node (src/node/index.ts),
    // or use a web-standard API (globalThis.crypto, TextEncoder, fetch, ...).
    expect(imports).toEqual([]);
    expect(bytes).toBeGreaterThan(100_000);
  });

  it("the bundle runs an agent where only web globals exist (no process, Buffer, require)", {
    timeout: 120_000,
  }, async () => {
    const entry = [
      'import { AgentHarness, runText, tool } from "@tinyagents/harness";',
      'import { MockModel } from "@tinyagents/inference";',
      "export async function main() {",
      "  const model = MockModel.scripted([",
      '    { message: { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "shout", arguments: { text: "hi" } }] } },',
      '    "done: HI",',
      "  ]);",
      "  const shout = tool({",
      '    name: "shout", description: "Upper-case text",',
      '    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },',
      "    execute: async (args) => String(args.text).toUpperCase(),",
      "  });",
      '  const agent = new AgentHarness({ instructions: "Be brief." }).registerModel("main", model).registerTool(shout);',
      '  const run = await agent.run("Shout hi");',
      "  return { text: runText(run), stopReason: run.stopReason, toolCalls: run.toolCalls, calls: run.usage.calls };",
      "}",
    ].join("\n");
    const result = await build({
      stdin: { contents: entry, resolveDir: repo, loader: "ts" },
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      globalName: "bundle",
      target: "es2022",
      logLevel: "silent",
      alias: {
        "@tinyagents/harness": `${repo}packages/harness/src/index.ts`,
        "@tinyagents/inference": `${repo}packages/inference/src/index.ts`,
      },
    });
    // The globals a browser or an edge runtime has; deliberately no process, Buffer, require, global.
    const web = {
      AbortController,
      AbortSignal,
      Event,
      EventTarget,
      TextEncoder,
      TextDecoder,
      URL,
      URLSearchParams,
      Headers,
      Request,
      Response,
      ReadableStream,
      WritableStream,
      TransformStream,
      DOMException,
      setTimeout,
      clearTimeout,
      setInterval,
      clearInterval,
      queueMicrotask,
      structuredClone,
      performance,
      crypto: globalThis.crypto,
      console,
      atob,
      btoa,
      fetch,
    };
    const context = vm.createContext({ ...web });
    vm.runInContext(`${result.outputFiles[0]?.text}; globalThis.bundle = bundle;`, context);
    const main = (context as { bundle: { main: () => Promise<unknown> } }).bundle.main;
    expect(vm.runInContext("typeof process + typeof Buffer + typeof require", context)).toBe(
      "undefinedundefinedundefined",
    );
    expect(await main()).toEqual({ text: "done: HI", stopReason: "completed", toolCalls: 1, calls: 2 });
  });

  it("the inference root bundles for a browser with no node: import", { timeout: 120_000 }, async () => {
    const { imports } = await nodeImportsOf(`${repo}packages/inference/src/index.ts`);
    expect(imports).toEqual([]);
  });

  it("detects a node: import (the check is live)", { timeout: 120_000 }, async () => {
    const { imports } = await nodeImportsOf(`${repo}packages/harness/src/node/index.ts`);
    expect(imports).toContain("packages/harness/src/store/jsonl-append-log.ts -> node:fs");
  });
});
