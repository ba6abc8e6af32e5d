import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

/**
 * `npm pack --dry-run` of a workspace package: the paths it would publish. Asynchronous, so the
 * packages are packed at once (each `npm` start costs about a second of CPU).
 */
function packedFiles(pkg: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      "npm",
      ["pack", "--dry-run", "--json", "--ignore-scripts"],
      { cwd: join(root, "packages", pkg), encoding: "utf8" },
      (error, stdout) => {
        if (error !== null) reject(error);
        else resolve(JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path));
      },
    );
  });
}

/** Every file an exports-map entry points at (conditions nest: `{ import: { types, default } }`). */
const conditionTargets = (conditions: unknown): string[] =>
  typeof conditions === "string"
    ? [conditions]
    : Object.values(conditions as object).flatMap(conditionTargets);

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
      const run = await h.run("hi");
      console.log(runText(run));
    `);
    expect(out.trim()).toBe("hello from dist");
  });

  it("the tools and mcp subpaths import in plain Node, and the core never loads the MCP SDK", () => {
    const out = importInPlainNode(`
      const tools = await import("@tinyagents/harness/builtin-tools");
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
    const cli = filesUnder(join(root, "packages/cli/dist")).filter((f) => f.endsWith(".js"));
    expect(cli.filter(importsHarness).length).toBeGreaterThan(0);
    expect(filesUnder(dist)).toEqual(
      expect.arrayContaining([join(dist, "index.js"), join(dist, "index.d.ts")]),
    );
    expect(offenders).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(root, "packages/inference/package.json"), "utf8"));
    expect(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })).not.toContain(
      "@tinyagents/harness",
    );
  });

  it("a class is the same class whichever entry point reaches it (one copy of the shared code)", () => {
    const out = importInPlainNode(`
      const harness = await import("@tinyagents/harness");
      const testkit = await import("@tinyagents/harness/testkit");
      const { harness: built } = await testkit.runScript({ script: ["ok"] });
      const classes = {};
      for (const spec of ["@tinyagents/inference", "@tinyagents/harness", "@tinyagents/harness/testkit"]) {
        for (const [name, value] of Object.entries(await import(spec))) {
          if (typeof value === "function" && /^class\\b/.test(value.toString())) classes[name] = value.name;
        }
      }
      console.log(JSON.stringify({
        instance: built instanceof harness.AgentHarness,
        sameConstructor: built.constructor === harness.AgentHarness,
        classes,
      }));
    `);
    const { instance, sameConstructor, classes } = JSON.parse(out);
    expect({ instance, sameConstructor }).toEqual({ instance: true, sameConstructor: true });
    // Bundling renames some classes internally (`class _MockModel`); their names stay as written.
    expect(Object.keys(classes).length).toBeGreaterThan(20);
    for (const [name, runtimeName] of Object.entries(classes)) expect(runtimeName).toBe(name);
    // Each exported class of the harness is declared in exactly one file of its dist (ES modules
    // only: a CommonJS consumer's require() loads these same files).
    const sources = filesUnder(join(root, "packages/harness/dist"))
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(f, "utf8"));
    const declaring = (name: string) =>
      sources.filter((code) =>
        new RegExp(`\\b(?:var|let|const)\\s+${name}\\s*=\\s*class\\b|\\bclass\\s+${name}\\b`).test(code),
      ).length;
    for (const name of ["AgentHarness", "EventSink", "InMemoryHarnessStatusStore", "ToolRegistry"])
      expect(declaring(name), name).toBe(1);
  });

  it("importing the root entry does not load node:crypto (SHA-256 finds it on the first hash)", () => {
    // A script file, not `node -e` (which loads node:crypto itself before any user code).
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-import-"));
    try {
      const script = join(dir, "probe.mjs");
      const entry = pathToFileURL(join(root, "packages/harness/dist/index.js")).href;
      const cacheEntry = pathToFileURL(join(root, "packages/harness/dist/cache/index.js")).href;
      writeFileSync(
        script,
        [
          "const crypto = () => process.moduleLoadList.filter((m) => /crypto/.test(m)).length;",
          `const harness = await import(${JSON.stringify(entry)});`,
          "const atImport = crypto();",
          `const { sha256Hex } = await import(${JSON.stringify(cacheEntry)});`,
          'const digest = harness.AgentHarness === undefined ? "no root" : sha256Hex("abc");',
          "console.log(JSON.stringify({ atImport, afterHash: crypto() > 0, digest }));",
        ].join("\n"),
      );
      const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: "utf8" });
      expect(JSON.parse(out)).toEqual({
        atImport: 0,
        afterHash: true,
        digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the root entry loads no optional peer; its subpath entries do", () => {
    // A resolve hook that refuses the optional peers: importing the root must still work.
    const hook = [
      "export async function resolve(specifier, context, next) {",
      "  if (/^(better-sqlite3|@opentelemetry\\/api|@modelcontextprotocol\\/sdk|@langchain\\/langgraph)(\\/|$)/.test(specifier))",
      '    throw new Error("optional peer loaded: " + specifier);',
      "  return next(specifier, context);",
      "}",
    ].join("\n");
    const out = importInPlainNode(`
      import { register } from "node:module";
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
      const harness = await import("@tinyagents/harness");
      const tried = {};
      for (const sub of ["sqlite", "otel", "mcp", "langgraph"]) {
        tried[sub] = await import("@tinyagents/harness/" + sub).then(() => "loaded", (error) => error.message);
      }
      console.log(JSON.stringify({ root: typeof harness.AgentHarness, tried }));
    `);
    expect(JSON.parse(out)).toEqual({
      root: "function",
      // The hook works: each subpath does import its peer. The SQLite one loads better-sqlite3
      // only when a store opens, and only on a runtime without a built-in SQLite.
      tried: {
        sqlite: "loaded",
        otel: "optional peer loaded: @opentelemetry/api",
        mcp: expect.stringMatching(/^optional peer loaded: @modelcontextprotocol\/sdk\//),
        langgraph: "optional peer loaded: @langchain/langgraph",
      },
    });
  });

  it("publish bundles and declarations, without source maps", { timeout: 120_000 }, async () => {
    const packed = Object.fromEntries(
      await Promise.all(
        ["inference", "harness", "cli", "postgres", "restate", "dbos"].map(
          async (pkg): Promise<[string, string[]]> => [pkg, await packedFiles(pkg)],
        ),
      ),
    );
    for (const [pkg, files] of Object.entries(packed)) {
      expect(
        files.filter((f) => f.endsWith(".map")),
        pkg,
      ).toEqual([]);
      expect(
        files.filter((f) => f.startsWith("src/")),
        pkg,
      ).toEqual([]);
      // Every target of the exports map, and every bin, is published.
      const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
      const targets = [
        ...Object.values(manifest.exports as Record<string, unknown>).flatMap(conditionTargets),
        ...Object.values((manifest.bin ?? {}) as Record<string, string>),
      ].map((t) => t.replace(/^\.\//, ""));
      expect(files, pkg).toEqual(expect.arrayContaining(targets));
    }
    // ES-module-only (docs/getting-started.md, "Module formats"): one copy of the JavaScript and one set
    // of declarations beside it — no CommonJS build (dist/cjs), no second declaration set
    // (dist/types) — and each exports entry is { types, default } of the same name.
    for (const [pkg, files] of Object.entries(packed)) {
      expect(
        files.filter((f) => f.startsWith("dist/cjs/") || f.startsWith("dist/types/")),
        pkg,
      ).toEqual([]);
      expect(files, pkg).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts"]));
      const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
      for (const [subpath, conditions] of Object.entries(manifest.exports as Record<string, unknown>)) {
        const { default: js } = conditions as { default: string };
        expect(conditions, `${pkg} ${subpath}`).toEqual({ types: js.replace(/\.js$/, ".d.ts"), default: js });
      }
      expect({ main: manifest.main, types: manifest.types }, pkg).toEqual({
        main: manifest.exports["."].default,
        types: manifest.exports["."].types,
      });
      // For TypeScript's node10 resolution (`module: "commonjs"`), which ignores `exports`: each
      // subpath's declarations through typesVersions (consumers.integration.test.ts compiles such a consumer).
      const subpaths = Object.entries(manifest.exports as Record<string, { types: string }>).filter(
        ([subpath]) => subpath !== ".",
      );
      expect(manifest.typesVersions?.["*"] ?? {}, pkg).toEqual(
        Object.fromEntries(subpaths.map(([subpath, { types }]) => [subpath.slice(2), [types]])),
      );
    }
    // The harness's JavaScript is one bundle per entry point plus a handful of shared chunks, not
    // one file per source module.
    const harnessEntries = Object.keys(
      JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8")).exports,
    ).length;
    expect(packed.harness?.filter((f) => f.endsWith(".js")).length).toBeLessThan(harnessEntries + 10);
  });

  it("the runtime core has no dependency beyond the documented ones", () => {
    const harness = JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8"));
    expect(Object.keys(harness.dependencies).sort()).toEqual([
      "@standard-schema/spec",
      "@tinyagents/inference",
    ]);
  });

  it("published declarations import only the package itself, its dependencies, peers and builtins", () => {
    // An inlined package (inlinedDependencies) is not installed for consumers: a declaration
    // importing it would not resolve.
    const bareImport =
      /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"'.][^"']*)["']|\bimport\(\s*["']([^"'.][^"']*)["']\s*\)/g;
    const packageOf = (specifier: string) =>
      specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/");
    const offenders: string[] = [];
    let checked = 0;
    for (const pkg of ["inference", "harness", "postgres", "restate", "dbos", "cli"]) {
      const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8"));
      const allowed = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      for (const file of filesUnder(join(root, "packages", pkg, "dist")).filter((f) => f.endsWith(".d.ts"))) {
        for (const match of readFileSync(file, "utf8").matchAll(bareImport)) {
          const specifier = (match[1] ?? match[2]) as string;
          checked++;
          if (specifier.startsWith("node:") || builtinModules.includes(packageOf(specifier))) continue;
          if (!allowed.has(packageOf(specifier))) offenders.push(`${file.slice(root.length)}: ${specifier}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });

  it("the JSON Schema validator is inlined into the harness, with its licence notice", async () => {
    // @cfworker/json-schema is bundled (inlinedDependencies): ten small files cost more to load
    // than their code. No built file imports it, so consumers do not install it.
    const harness = JSON.parse(readFileSync(join(root, "packages/harness/package.json"), "utf8"));
    expect(harness.inlinedDependencies).toEqual(["@cfworker/json-schema"]);
    expect(Object.keys(harness.devDependencies)).toContain("@cfworker/json-schema");
    const dist = join(root, "packages/harness/dist");
    const importers = filesUnder(dist)
      .filter((f) => f.endsWith(".js"))
      .filter((f) => /(?:from\s*|import\s*\(\s*)["']@cfworker\//.test(readFileSync(f, "utf8")));
    expect(importers).toEqual([]);
    const notices = readFileSync(join(dist, "THIRD-PARTY-NOTICES.md"), "utf8");
    expect(notices).toMatch(/^## @cfworker\/json-schema \d+\.\d+\.\d+$/m);
    expect(notices).toContain("Copyright (c) Jeremy Danyow");
    expect(notices).toContain("Permission is hereby granted, free of charge");
    expect(await packedFiles("harness")).toContain("dist/THIRD-PARTY-NOTICES.md");
    // The inlined validator works from the built root.
    const out = importInPlainNode(`
      const { validateAgainstSchema } = await import("@tinyagents/harness/tool");
      const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
      console.log(JSON.stringify([validateAgainstSchema(schema, { a: 1 }), validateAgainstSchema(schema, { a: "x" })]));
    `);
    expect(JSON.parse(out)).toEqual([["$.a: expected string, got number"], []]);
  });
});
