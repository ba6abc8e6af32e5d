// See .ci/pack-consumer. Node >= 20, no dependency beyond what the repository's devDependencies
// and the npm registry (typescript, @types/node and the snippet's own imports, at the versions the
// repository's lockfile installed) provide.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startLoopbackChatServer } from "../test/packaging/loopback-chat-server.mjs";

const repo = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const repoRequire = createRequire(join(repo, "package.json"));
const versionOf = (name) =>
  JSON.parse(readFileSync(repoRequire.resolve(`${name}/package.json`), "utf8")).version;
const t0 = Date.now();
const log = (message) =>
  console.log(`pack-consumer [${((Date.now() - t0) / 1000).toFixed(1)} s]: ${message}`);
const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });

// The packages are ES-module-only: a CommonJS consumer's require() loads them through require(esm),
// unflagged from Node 20.19 and 22.12 (the packages' `engines`). On an older Node this check would
// fail for the wrong reason, so say which.
const [major, minor] = process.versions.node.split(".").map(Number);
if ((major === 20 && minor < 19) || major === 21 || (major === 22 && minor < 12) || major < 20) {
  throw new Error(
    `pack-consumer needs Node ^20.19 or >= 22.12 (require of ES modules); this is ${process.version}`,
  );
}

const tmp = mkdtempSync(join(tmpdir(), "tinyagents-pack-"));
let server;
try {
  // 1. Pack. The packages are built (npm test built them); build if a dist is missing.
  const workspaces = ["inference", "harness", "cli"];
  if (workspaces.some((w) => !readdirSync(join(repo, "packages", w)).includes("dist"))) {
    run("npm", ["run", "build"], { cwd: repo, stdio: "inherit" });
  }
  const tarballs = join(tmp, "tarballs");
  mkdirSync(tarballs);
  for (const w of workspaces) {
    run("npm", ["pack", "--silent", "--pack-destination", tarballs], { cwd: join(repo, "packages", w) });
  }
  const packed = readdirSync(tarballs).map((f) => join(tarballs, f));
  log(`packed ${readdirSync(tarballs).join(", ")}`);

  // 2. The README's first snippet, pointed at the loopback server.
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  // Every ```ts snippet is compiled there; the first one is also run.
  const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  const snippet = snippets[0];
  if (snippet === undefined) throw new Error("README.md has no ```ts snippet");
  const bare = [...snippets.join("\n").matchAll(/from\s+"([^"./][^"]*)"/g)]
    .map((m) => m[1])
    .filter((s) => !s.startsWith("@tinyagents/") && !s.startsWith("node:"))
    .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]));

  // 3. A fresh app with the tarballs, TypeScript, @types/node and the snippet's other imports.
  const app = join(tmp, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  const extras = ["typescript", "@types/node", ...new Set(bare)].map((n) => `${n}@${versionOf(n)}`);
  // --ignore-scripts: no native build (better-sqlite3, a dependency of the CLI, compiles for minutes
  // without a prebuilt binary); .ci/fresh-clone covers the native install, this step the packages.
  const flags = ["--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline", "--ignore-scripts"];
  run("npm", ["install", ...flags, ...packed, ...extras], { cwd: app });
  log(`installed the tarballs and ${extras.join(", ")}`);

  // 4. The loopback OpenAI-compatible server (the one the packed-consumer test uses): a tool call
  //    first (when tools are offered and the last message is the user's), then a final answer;
  //    streamed as SSE when asked.
  server = await startLoopbackChatServer();
  const { seen, baseUrl } = server;
  const pointed = snippet.replace(/https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?\/v1/g, baseUrl);
  if (pointed === snippet)
    log("the snippet names no localhost URL; it gets the server through the environment only");

  // 5. ESM (.mts, as written) and CommonJS (.cts: the same code, the statements after the imports
  //    in an async function because CommonJS has no top-level await). The .cts compiles to
  //    require() calls of the ES-module-only packages: TypeScript accepts that from 5.8 on with
  //    `module: "nodenext"` (checked and emitted here) or, from 5.9, `"node20"` (checked below).
  const lines = pointed.split("\n");
  let lastImport = -1;
  lines.forEach((line, i) => {
    if (/^import\s|^\}\s*from\s/.test(line)) lastImport = i;
  });
  const imports = lines.slice(0, lastImport + 1).join("\n");
  const body = lines.slice(lastImport + 1).join("\n");
  writeFileSync(join(app, "first.mts"), pointed);
  const others = snippets.slice(1).map((code, i) => {
    const name = `readme-${i + 2}.mts`;
    writeFileSync(join(app, name), `${code}\nexport {};\n`);
    return name;
  });
  writeFileSync(
    join(app, "first.cts"),
    `${imports}\n\nasync function main(): Promise<void> {\n${body}\n}\nvoid main().catch((error: unknown) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`,
  );
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        types: ["node"],
        outDir: "out",
      },
      files: ["first.mts", "first.cts", ...others],
    }),
  );
  const tsc = join(app, "node_modules/typescript/bin/tsc");
  for (const [module, args] of [
    ["nodenext", []],
    ["node20", ["--module", "node20", "--moduleResolution", "node16", "--noEmit"]],
  ]) {
    try {
      run(process.execPath, [tsc, "-p", app, ...args], { cwd: app });
    } catch (error) {
      throw new Error(
        `the README snippets do not typecheck in a plain-strict consumer (module ${module}):\n${error.stdout}${error.stderr}`,
      );
    }
  }
  log(
    `the README snippets (${snippets.length}) typecheck (strict, skipLibCheck false; module nodenext and node20); the first as ESM and as CommonJS`,
  );
  if (!/\brequire\("@tinyagents\//.test(readFileSync(join(app, "out/first.cjs"), "utf8")))
    throw new Error("out/first.cjs does not require() the packages");

  const env = {
    ...process.env,
    OPENAI_BASE_URL: baseUrl,
    OPENAI_API_KEY: "sk-loopback",
    TINYAGENTS_BASE_URL: baseUrl,
    OLLAMA_HOST: baseUrl.replace(/\/v1$/, ""),
  };
  for (const file of ["out/first.mjs", "out/first.cjs"]) {
    const before = seen.length;
    let out;
    try {
      out = await new Promise((ok, fail) => {
        import("node:child_process").then(({ execFile }) =>
          execFile(process.execPath, [file], { cwd: app, env, timeout: 60_000 }, (error, stdout, stderr) =>
            error ? fail(Object.assign(error, { stdout, stderr })) : ok(stdout),
          ),
        );
      });
    } catch (error) {
      throw new Error(`${file} failed: ${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    }
    const requests = seen.slice(before);
    const toolResults = requests.filter((r) => r.withToolResult);
    if (requests.length === 0) throw new Error(`${file} made no request to the loopback server`);
    if (requests.some((r) => r.offeredTools) && toolResults.length === 0) {
      throw new Error(`${file}: the model asked for a tool, but no tool result came back`);
    }
    log(
      `${file}: exit 0, ${requests.length} chat completions (${requests.filter((r) => r.stream).length} streamed, ${toolResults.length} with tool results); stdout: ${out.trim().split("\n")[0]?.slice(0, 100)}`,
    );
  }

  // 6. Every entry point through require() and import, from the installed tarballs.
  const entries = [];
  for (const name of ["@tinyagents/inference", "@tinyagents/harness"]) {
    const manifest = JSON.parse(readFileSync(join(app, "node_modules", name, "package.json"), "utf8"));
    for (const sub of Object.keys(manifest.exports))
      entries.push(sub === "." ? name : `${name}/${sub.slice(2)}`);
  }
  const optionalPeers = /harness\/(otel|mcp|langgraph)$/; // need packages the app does not install
  const load = entries.filter((e) => !optionalPeers.test(e));
  // require() and import() must hand out the same module (one copy of each class).
  const check = `const r = require; const required = ${JSON.stringify(load)}.map((e) => r(e));
    Promise.all(${JSON.stringify(load)}.map((e) => import(e))).then((imported) => {
      const differ = ${JSON.stringify(load)}.filter((e, i) => imported[i] !== required[i]);
      console.log(differ.length === 0 ? "ok" : "differ: " + differ.join(", "));
    });`;
  const same = run(process.execPath, ["-e", check], { cwd: app }).trim();
  // @cfworker/json-schema is inlined into the harness (inlinedDependencies): not installed, and
  // the harness's JSON Schema validation works without it.
  if (readdirSync(join(app, "node_modules")).includes("@cfworker"))
    throw new Error("@cfworker/json-schema was installed, but the harness inlines it");
  const validation = run(
    process.execPath,
    [
      "-e",
      `const { validateAgainstSchema } = require("@tinyagents/harness/tool");
       console.log(validateAgainstSchema({ type: "object", properties: { a: { type: "string" } } }, { a: 1 }).join());`,
    ],
    { cwd: app },
  ).trim();
  if (validation !== "$.a: expected string, got number")
    throw new Error(`JSON Schema validation from the packed harness: ${validation}`);
  if (same !== "ok") throw new Error(`require() and import() load different modules: ${same}`);
  log(
    `require() and import(): ${load.length} entries, the same module either way (${entries.length - load.length} need an optional peer)`,
  );

  // 7. The installed harness root bundles for a browser (no node: import).
  const { build } = repoRequire("esbuild");
  await build({
    stdin: { contents: 'export * from "@tinyagents/harness";', resolveDir: app },
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    logLevel: "silent",
  });
  log("the installed @tinyagents/harness root bundles for a browser");
} finally {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
}
