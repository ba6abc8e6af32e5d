import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// What a consumer of the BUILT packages sees (`npm test` builds before Vitest): CommonJS
// `require()` of the ES-module-only packages (require(esm): Node >= 20.19 / 22.12), and
// declarations compiled with a plain `strict` tsconfig and `skipLibCheck: false` (not this
// repository's stricter settings such as exactOptionalPropertyTypes).
const root = fileURLToPath(new URL("../../..", import.meta.url));
const app = join(root, "node_modules/.cache/tinyagents-consumer-app");

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" });

/**
 * Run this repository's `tsc` with `args` in a child process; resolves with what it printed (empty
 * when it compiled cleanly). Asynchronous, so the two compiles below run at once (`it.concurrent`):
 * each is single-threaded, and on two cores they took most of this file's time one after the other.
 */
function tsc(args: string[]): Promise<string> {
  const bin = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: "utf8" }, (error, stdout) =>
      resolve(error === null ? stdout : String(stdout || error)),
    );
  });
}

/** `testkit`, `tools`, ...: the harness's subpaths, from its exports map. */
function harnessSubpaths(): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8"));
  return Object.keys(manifest.exports)
    .filter((key) => key !== ".")
    .map((key) => key.slice(2));
}

describe("consumers of the built packages", () => {
  it("require() loads every entry: the same ES modules as import (require(esm), Node >= 20.19)", () => {
    const out = node([
      "-e",
      `
      const harness = require("@tinyagents/harness");
      const testkit = require("@tinyagents/harness/testkit");
      const { user } = require("@tinyagents/inference");
      const loaded = {};
      for (const sub of ${JSON.stringify(harnessSubpaths())}) {
        loaded[sub] = Object.keys(require("@tinyagents/harness/" + sub)).length > 0;
      }
      (async () => {
        const agent = new harness.AgentHarness().registerModel("m", new testkit.ScriptedModel(["hello from require"]));
        const run = await agent.run("hi");
        const { harness: built } = await testkit.runScript({ script: ["ok"] });
        const imported = await import("@tinyagents/harness");
        console.log(JSON.stringify({
          text: harness.runText(run),
          role: user("x").role,
          sameClass: built instanceof harness.AgentHarness,
          sameModule: imported.AgentHarness === harness.AgentHarness && imported.EventSink === harness.EventSink,
          loaded,
        }));
      })();
    `,
    ]);
    expect(JSON.parse(out)).toEqual({
      text: "hello from require",
      role: "user",
      sameClass: true,
      // One copy of each class: require() and import hand out the same module instance.
      sameModule: true,
      loaded: Object.fromEntries(harnessSubpaths().map((sub) => [sub, true])),
    });
  });

  it("require() loads every entry of every package (no top-level await in any module graph)", () => {
    // require(esm) refuses a graph with top-level await (ERR_REQUIRE_ASYNC_MODULE); this would
    // catch one added to our code or to a dependency an entry loads.
    const packages = ["inference", "harness", "postgres", "restate", "dbos", "cli"];
    const specifiers = packages.flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
      return Object.keys(manifest.exports).map((key) =>
        key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`,
      );
    });
    const out = node([
      "-e",
      `const result = {};
      for (const spec of ${JSON.stringify(specifiers)}) {
        try { result[spec] = Object.keys(require(spec)).length > 0 ? "loaded" : "empty"; }
        catch (error) { result[spec] = error.code ?? error.message; }
      }
      console.log(JSON.stringify(result));`,
    ]);
    expect(JSON.parse(out)).toEqual(Object.fromEntries(specifiers.map((spec) => [spec, "loaded"])));
    expect(specifiers.length).toBeGreaterThan(15);
  });

  it("the exports map resolves import and require to the same file", () => {
    const require = createRequire(join(root, "package.json"));
    const resolved = node([
      "--input-type=module",
      "-e",
      `import { createRequire } from "node:module";
       const require = createRequire(${JSON.stringify(join(root, "package.json"))});
       const specs = ["@tinyagents/harness", "@tinyagents/harness/testkit", "@tinyagents/inference"];
       console.log(JSON.stringify(specs.map((s) => [require.resolve(s), new URL(import.meta.resolve(s)).pathname])));`,
    ]);
    for (const [required, imported] of JSON.parse(resolved) as [string, string][])
      expect(required).toBe(imported);
    expect(require.resolve("@tinyagents/harness")).toMatch(/harness\/dist\/index\.js$/);
    const manifest = JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8"));
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      expect(Object.keys(conditions as object), subpath).toEqual(["types", "default"]);
    }
  });

  it.concurrent("a legacy CommonJS TypeScript consumer (module commonjs, node10 resolution) compiles and runs", async () => {
    // node10 resolution ignores `exports`: the root's types come from `types`, the subpaths' from
    // `typesVersions`; the emitted require() calls load the ES modules (require(esm)).
    // Outside node_modules (TypeScript leaves a file there untransformed), resolving the packages
    // through a symlink to this repository's node_modules.
    const legacy = mkdtempSync(join(tmpdir(), "tinyagents-legacy-consumer-"));
    try {
      symlinkSync(join(root, "node_modules"), join(legacy, "node_modules"), "dir");
      mkdirSync(join(legacy, "out"));
      writeFileSync(join(legacy, "out", "package.json"), '{ "type": "commonjs" }\n');
      writeFileSync(
        join(legacy, "legacy.ts"),
        `import { AgentHarness } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { calculatorTool } from "@tinyagents/harness/builtin-tools";
import { user } from "@tinyagents/inference";

export async function main(): Promise<string> {
  const agent = new AgentHarness().registerModel("m", new ScriptedModel(["hello, legacy"])).registerTool(calculatorTool());
  return \`\${user("x").role} \${(await agent.run("hi")).text}\`;
}
`,
      );
      const flags = [
        "--strict",
        "--skipLibCheck",
        "false",
        "--module",
        "commonjs",
        "--moduleResolution",
        "node10",
      ];
      const rest = ["--target", "es2022", "--types", "node", "--outDir", join(legacy, "out")];
      expect(await tsc([...flags, ...rest, join(legacy, "legacy.ts")])).toBe("");
      const emitted = join(legacy, "out", "legacy.js");
      expect(readFileSync(emitted, "utf8")).toContain('require("@tinyagents/harness/testkit")');
      const ran = node(["-e", `require(${JSON.stringify(emitted)}).main().then(console.log)`]);
      expect(ran.trim()).toBe("user hello, legacy");
    } finally {
      rmSync(legacy, { recursive: true, force: true });
    }
  }, 300_000);

  it.concurrent("the declarations compile in a plain-strict consumer (skipLibCheck false), ESM and CommonJS", async () => {
    rmSync(app, { recursive: true, force: true });
    mkdirSync(join(app, "cjs"), { recursive: true });
    const code = `
import { AgentHarness, tool } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { calculatorTool } from "@tinyagents/harness/builtin-tools";
import { createModel, type OllamaOptions } from "@tinyagents/inference";

const options: OllamaOptions = { temperature: 0.2, num_ctx: 8192 };
const model = createModel("openai:gpt-4.1-mini");
const stream: AsyncIterable<unknown> = model.stream({ messages: [] }); // required on adapters
const agent = new AgentHarness().registerModel("m", new ScriptedModel(["hi"])).registerTool(calculatorTool());
const echo = tool({ name: "echo", description: "Echo", inputSchema: { type: "object" }, execute: () => "ok" });
agent.registerTool(echo);
export async function main(): Promise<string> {
  void options;
  void stream;
  return (await agent.run("hi")).text;
}
`;
    writeFileSync(join(app, "esm.mts"), code);
    writeFileSync(join(app, "cjs", "consumer.cts"), code);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        types: ["node"],
        noEmit: true,
      },
      files: ["esm.mts", "cjs/consumer.cts"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    expect(await tsc(["-p", join(app, "tsconfig.json")])).toBe("");
  }, 300_000);
});
