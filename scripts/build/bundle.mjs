// Build one workspace package, from its directory: `node ../../scripts/build/bundle.mjs` (the
// `build` script of packages/*/package.json; the root `npm run build` runs them in `workspaces`
// order, so a package's workspace dependencies are built before it).
//
// JavaScript, with esbuild: one ES module per public entry point (the `default` target of every
// `exports` entry, and every `bin`), no source maps (they would point at src/, unpublished).
// The packages are ES-module-only (docs/getting-started.md, "Module formats"): CommonJS consumers
// `require()` these same files (Node >= 20.19 / 22.12 load an ES module from require()), so every
// `exports` entry is `{ types, default }` — a `require` or `import` condition fails the build — and
// no module of the graph may use top-level await (require() would refuse it: the packaging tests
// require() every entry).
//
//   The root entry (".") and everything it needs load as two files — `import "@tinyagents/harness"`
//   reads dist/index.js and one chunk, not hundreds of modules (modules reached only through a
//   dynamic `import()`, like the CLI's commands, stay separate chunks loaded on demand).
//   The other entries (subpaths, bins) never bundle a second copy of a module the root already
//   has: they import it from dist/chunks/core.js, a private entry that re-exports those modules
//   from the root's chunk. So each class exists once and `instanceof` holds across
//   `@tinyagents/harness` and `@tinyagents/harness/testkit`. Code the subpaths share among
//   themselves goes to dist/chunks/ (esbuild `splitting`).
//   (Plain `splitting` over all entries would give the same sharing, but it cuts the root's code
//   into one chunk per combination of entries that use it: ~9 files, measurably slower to import.)
//
// Every bare import (dependencies, peers, other workspace packages, node builtins) stays an import:
// the build fails on an undeclared package, and if the root entry (with all it imports statically)
// would load an optional peer — those are imported only by their subpath. The exception is a
// package named in `inlinedDependencies` (a devDependency): it is bundled into our chunks, with its
// licence in dist/THIRD-PARTY-NOTICES.md (third-party-notices.mjs). For @cfworker/json-schema, ten
// small files whose loading cost more than their code: import of the harness root, CPU, 42 -> 30 ms.
//
// Types: `tsc -p tsconfig.build.json` (emitDeclarationOnly, no declaration maps) writes one set of
// .d.ts files, with the src/ layout, into dist beside the JavaScript (ES-module declarations, as the
// package is `"type": "module"`). It runs while esbuild bundles.
//
// Everything is written to a staging directory (under node_modules/.cache, git-ignored) that then
// replaces dist in one rename: no stale files of an older layout, and a process reading dist while
// a build runs (or after one failed) never sees it half written.
//
// Options: --outdir DIR (default dist), --js-only (no tsc; tests build into a temp dir this way).
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { buildWebApp } from "./bundle-web-app.mjs";
import { pruneDeclarations } from "./prune-declarations.mjs";
import { thirdPartyNotices } from "./third-party-notices.mjs";

const pkgDir = process.cwd();
const { values: flags } = parseArgs({
  options: { outdir: { type: "string" }, "js-only": { type: "boolean" } },
});
const outdir = resolve(pkgDir, flags.outdir ?? "dist");
if (`${pkgDir}/`.startsWith(`${outdir}/`)) throw new Error(`--outdir ${outdir} would delete the package`);
const cache = fileURLToPath(new URL("../../node_modules/.cache/tinyagents-build/", import.meta.url));
const staging = join(cache, `${basename(pkgDir)}-${process.pid}`);
/** The metafile key (path relative to the package) of output `name`, e.g. `testkit/index`. */
const outKey = (name) => relative(pkgDir, join(staging, `${name}.js`));
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
let tsc;
const fail = (message) => {
  console.error(`build ${manifest.name}: ${message}`);
  tsc?.kill();
  rmSync(staging, { recursive: true, force: true });
  process.exit(1);
};

/** `./dist/testkit/index.js` -> [`testkit/index`, `src/testkit/index.ts`]. */
function entryFor(target) {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target ?? "");
  if (match === null) fail(`entry ${target} is not ./dist/<name>.js`);
  const source = `src/${match[1]}.ts`;
  if (!existsSync(join(pkgDir, source))) fail(`entry ${target} has no source ${source}`);
  return [match[1], source];
}

/**
 * The entries a bin needs. A bin is a committed, executable shim outside dist (npm links a bin
 * only if its file exists at install time, which is before any build, and would not chmod a
 * file the build writes later): its `import("../dist/<name>.js")` targets are built.
 */
function binTargets(bin) {
  if (bin.startsWith("./dist/")) return [bin];
  const text = readFileSync(join(pkgDir, bin), "utf8");
  const targets = [...text.matchAll(/import\(\s*["']\.\.\/(dist\/[^"']+\.js)["']\s*\)/g)].map(
    (m) => `./${m[1]}`,
  );
  if (targets.length === 0) fail(`bin ${bin} imports nothing from ../dist/`);
  return targets;
}

const exportsMap = manifest.exports ?? {};
/**
 * The JavaScript target of an `exports` entry, which must be `{ types, default }` with both under
 * dist and of the same name (`./dist/x.d.ts`, `./dist/x.js`): one ES-module file for `import` and
 * `require()` alike, and the declarations tsc writes beside it.
 */
function targetOf(subpath, conditions) {
  const keys = typeof conditions === "object" && conditions !== null ? Object.keys(conditions) : [];
  if (keys.join() !== "types,default") {
    fail(
      `exports["${subpath}"] must be { "types": "./dist/<name>.d.ts", "default": "./dist/<name>.js" }` +
        ` (the packages are ES-module-only; require() loads the same file), not ${JSON.stringify(conditions)}`,
    );
  }
  if (conditions.types !== conditions.default.replace(/\.js$/, ".d.ts"))
    fail(`exports["${subpath}"].types must be ${conditions.default.replace(/\.js$/, ".d.ts")}`);
  return conditions.default;
}
const [rootName, rootSource] = entryFor(targetOf(".", exportsMap["."]));
const subpathEntries = Object.fromEntries(
  Object.entries(exportsMap)
    .filter(([subpath]) => subpath !== ".")
    .map(([subpath, conditions]) => entryFor(targetOf(subpath, conditions))),
);
const otherEntries = {
  ...subpathEntries,
  ...Object.fromEntries(
    (typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {}))
      .flatMap(binTargets)
      .map(entryFor),
  ),
};

const packageOf = (path) =>
  path
    .split("/")
    .slice(0, path.startsWith("@") ? 2 : 1)
    .join("/");

// Packages the build inlines (`inlinedDependencies` in package.json; each must be a devDependency,
// so consumers never install it): a small dependency whose many files would cost more to load
// than their code does. Every other bare specifier stays an import (checked against the manifest
// below).
const inlined = new Set(manifest.inlinedDependencies ?? []);
for (const name of inlined) {
  if (manifest.devDependencies?.[name] === undefined)
    fail(`inlinedDependencies: ${name} must be a devDependency (it is bundled, not installed)`);
  if (manifest.dependencies?.[name] !== undefined || manifest.peerDependencies?.[name] !== undefined)
    fail(`inlinedDependencies: ${name} is also a dependency or peer; it would be loaded twice`);
}
const externalPackages = {
  name: "external-packages",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) =>
      inlined.has(packageOf(args.path)) ? undefined : { path: args.path, external: true },
    );
  },
};

const options = {
  absWorkingDir: pkgDir,
  outdir: staging,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  tsconfig: "tsconfig.build.json",
  sourcemap: false,
  metafile: true,
  logLevel: "warning",
};
const bundle = (more) =>
  build({ ...options, ...more, plugins: [...(more.plugins ?? []), externalPackages] }).catch((error) =>
    fail(error.message),
  );

// The private entry the other entries import the root's modules from, and its placeholder
// specifier in their output (replaced by a relative path once the output file is known).
const CORE_NAME = "chunks/core";
const CORE = "@@core@@";

/** esbuild plugin: an import of one of `modules` becomes an external import of `specifier(path)`. */
const importModulesFrom = (modules, specifier) => ({
  name: "import-from-core",
  setup(pluginBuild) {
    const skip = Symbol("skip");
    pluginBuild.onResolve({ filter: /^\./ }, async (args) => {
      // An entry point is built as itself even when the root also imports it (a subpath that is
      // a folder's index, like `@tinyagents/harness/cache`): its own imports then go to core.
      if (args.pluginData === skip || args.kind === "entry-point") return undefined;
      const { path, errors } = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: skip,
      });
      return errors.length === 0 && modules.has(path) ? { path: specifier(path), external: true } : undefined;
    });
  },
});

/** esbuild plugin: the entry `core-entry` is a module re-exporting every one of `modules`. */
const coreEntry = (modules) => ({
  name: "core-entry",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^core-entry$/ }, () => ({
      path: "core-entry",
      namespace: "core-entry",
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: "core-entry" }, () => ({
      contents: [...modules].map((path) => `export * from ${JSON.stringify(path)};`).join("\n"),
      resolveDir: pkgDir,
      loader: "js",
    }));
  },
});

// A class that refers to itself (`static echo() { return new MockModel() }`) comes out of esbuild
// as `var MockModel = class _MockModel {`, so its `.name` would be "_MockModel". A static block
// gives it back its name. (esbuild's `keepNames` would too, but it also wraps every function,
// nested closures included, in a `__name()` call: a slower import and slower hot paths.)
const restoreClassNames = (text) =>
  text.replace(
    /^(var ([\w$]+) = class _\2\b[^{\n]*\{)$/gm,
    (head, _, name) =>
      `${head}\n  static { Object.defineProperty(this, "name", { value: ${JSON.stringify(name)} }); }`,
  );

/** Write esbuild's in-memory `outputFiles`, each through `transform(path, text)`. */
function write(outputFiles, transform) {
  for (const { path, text } of outputFiles) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, transform(path, restoreClassNames(text)));
  }
}

/** Replace the CORE placeholder in `text` (the output `file`); fail on a name core does not export. */
function linkToCore(file, text, coreFile, coreExports) {
  const specifier = JSON.stringify(CORE);
  const where = relative(pkgDir, file);
  // esbuild writes `import { a, b as c } from "..."` (or `export { ... } from`, `import * as ns`).
  const clauses = [
    ...text.matchAll(
      new RegExp(
        `\\b(import|export)\\s*([\\w$]+\\s*,?\\s*)?(\\{[^}]*\\}|\\*(?:\\s*as\\s+[\\w$]+)?)?\\s*from\\s*${specifier}`,
        "g",
      ),
    ),
  ];
  const dynamic = text.split(`import(${specifier})`).length - 1;
  if (clauses.length + dynamic !== text.split(specifier).length - 1)
    fail(`${where}: an import of core not understood`);
  for (const [clause, keyword, defaultName, names = ""] of clauses) {
    if (keyword === "export" && names.startsWith("*")) fail(`${where}: ${clause}`);
    const imported = names.startsWith("{") ? names.slice(1, -1).split(",") : [];
    for (const name of [...imported.map((n) => n.trim().split(/\s+as\s+/)[0]), defaultName && "default"]) {
      if (name && !coreExports.has(name))
        fail(`${where} imports \`${name}\` from a root module, which core does not export`);
    }
  }
  let path = relative(dirname(file), coreFile);
  if (!path.startsWith(".")) path = `./${path}`;
  return text.replaceAll(specifier, JSON.stringify(path));
}

rmSync(staging, { recursive: true, force: true });
const types = new Promise((resolvePromise) => {
  if (flags["js-only"]) return resolvePromise();
  const bin = createRequire(join(pkgDir, "package.json")).resolve("typescript/bin/tsc");
  tsc = spawn(process.execPath, [bin, "-p", "tsconfig.build.json", "--outDir", staging], {
    cwd: pkgDir,
    stdio: "inherit",
  });
  tsc.on("error", (error) => fail(error.message));
  tsc.on("exit", (code) => (code === 0 ? resolvePromise() : fail(`tsc exited with ${code}`)));
});

// 1. Which modules make up the root entry; 2. which of them the other entries import.
const abs = (inputs) => new Set(Object.keys(inputs).map((input) => resolve(pkgDir, input)));
const rootModules = abs((await bundle({ entryPoints: [rootSource], write: false })).metafile.inputs);
const shared = new Set();
if (Object.keys(otherEntries).length > 0) {
  const probe = await bundle({
    entryPoints: otherEntries,
    write: false,
    plugins: [importModulesFrom(rootModules, (path) => `${CORE}${path}`)],
  });
  for (const output of Object.values(probe.metafile.outputs)) {
    for (const { path } of output.imports) if (path.startsWith(CORE)) shared.add(path.slice(CORE.length));
  }
}

// 3. The root entry (plus, if needed, the core entry).
const pass1 = await bundle({
  entryPoints: { [rootName]: rootSource, ...(shared.size > 0 ? { [CORE_NAME]: "core-entry" } : {}) },
  write: false,
  plugins: [coreEntry(shared)],
});
write(pass1.outputFiles, (_, text) => text);
const outputs = { ...pass1.metafile.outputs };
const rootOutput = outKey(rootName);

// 4. The other entries, importing the root's modules from the core entry.
if (Object.keys(otherEntries).length > 0) {
  const coreFile = resolve(pkgDir, outKey(CORE_NAME));
  const coreExports = new Set(outputs[outKey(CORE_NAME)]?.exports);
  const pass2 = await bundle({
    entryPoints: otherEntries,
    write: false,
    plugins: [importModulesFrom(rootModules, () => CORE)],
  });
  write(pass2.outputFiles, (path, text) => linkToCore(path, text, coreFile, coreExports));
  for (const [file, output] of Object.entries(pass2.metafile.outputs)) {
    outputs[file] = { ...output, imports: output.imports.filter(({ path }) => path !== CORE) };
  }
}

// What the bundles import: builtins and declared packages only.
const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
const isBuiltin = (path) => path.startsWith("node:") || builtinModules.includes(packageOf(path));
for (const [file, output] of Object.entries(outputs)) {
  for (const { path, external } of output.imports) {
    if (external && !isBuiltin(path) && !declared.has(packageOf(path))) {
      fail(`${file} imports ${path}, which is not a dependency or peer dependency`);
    }
  }
}

// The root entry, with everything it imports statically, must not load an optional peer.
const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional === true)
  .map(([name]) => name);
const seen = new Set();
const checkStatic = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  for (const { path, kind, external } of outputs[file].imports) {
    if (kind !== "import-statement") continue;
    if (!external) checkStatic(path);
    else if (optionalPeers.includes(packageOf(path))) fail(`the root entry loads optional peer ${path}`);
  }
};
checkStatic(rootOutput);

// A package with a web app (the CLI's inspector, ui-app/) ships it built in dist/inspector.
if (existsSync(join(pkgDir, "ui-app", "src", "main.ts"))) {
  await buildWebApp(join(pkgDir, "ui-app"), join(staging, "inspector")).catch((error) =>
    fail(`web app: ${error.message}`),
  );
}

await types;
// Only the declarations a consumer's compiler can reach from the manifest's type entry points.
if (!flags["js-only"]) pruneDeclarations(staging, manifest);

// The licence notices of inlined packages (MIT and the like require them with every copy).
if (inlined.size > 0) {
  const notices = thirdPartyNotices(manifest.name, [...inlined], createRequire(join(pkgDir, "package.json")));
  if (typeof notices !== "string") fail(notices.error);
  writeFileSync(join(staging, "THIRD-PARTY-NOTICES.md"), notices);
}

// Swap the finished build in (a copy when --outdir is on another file system than the cache).
const move = (from, to) => {
  try {
    renameSync(from, to);
  } catch (error) {
    if (error.code !== "EXDEV") throw error;
    cpSync(from, to, { recursive: true });
    rmSync(from, { recursive: true, force: true });
  }
};
const previous = `${staging}-previous`;
if (existsSync(outdir)) move(outdir, previous);
move(staging, outdir);
rmSync(previous, { recursive: true, force: true });
const entries = 1 + Object.keys(otherEntries).length;
const dts = flags["js-only"] ? "no .d.ts (--js-only)" : ".d.ts by tsc";
console.log(`${manifest.name}: ${entries} entries, ${Object.keys(outputs).length} files; ${dts}`);
