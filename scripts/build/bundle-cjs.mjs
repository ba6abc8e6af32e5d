// The CommonJS build of a package (`require` condition of its exports map): Node 20 cannot
// `require()` an ES module, so `require("@tinyagents/harness")` needs real CommonJS files.
//
// Layout: dist/cjs/ holds one CommonJS file per entry (dist/cjs/index.js, dist/cjs/testkit/index.js,
// ...) and a package.json saying `"type": "commonjs"` (the package itself is `"type": "module"`).
// The declarations are shared with the ES modules (dist/types, see bundle.mjs); a package whose
// `require` condition names its own `types` under dist/cjs gets a copy there (copyDeclarations).
//
// One copy of each class, as in the ESM build: every module of the root entry is bundled once,
// into dist/cjs/chunks/core.js; the entries require it. (esbuild cannot split CommonJS output.)
// So the CommonJS root exports a superset of the public names: everything in the core,
// internal helpers included; the declarations list only the public ones.
// Code that only subpath entries use is bundled into each of them.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";

const CORE = "@@cjs-core@@";

/**
 * Build the CommonJS entries into `staging/cjs`. `entries` maps output names (`index`,
 * `testkit/index`) to sources; `rootModules` (absolute paths) are the root entry's modules,
 * `rootSource` its entry file.
 */
export async function buildCjs({ options, staging, entries, rootSource, rootModules, pkgDir, fail }) {
  const outdir = join(staging, "cjs");
  const rootPath = join(pkgDir, rootSource);
  const shared = [...rootModules].filter((path) => path !== rootPath);
  const cjsOptions = { ...options, format: "cjs", splitting: false, outdir, metafile: false, write: false };
  const run = (more) => build({ ...cjsOptions, ...more }).catch((error) => fail(`cjs: ${error.message}`));

  // 1. The core: every module of the root entry, re-exported from one file.
  const core = await run({
    entryPoints: { "chunks/core": "cjs-core-entry" },
    plugins: [
      {
        name: "cjs-core-entry",
        setup(b) {
          b.onResolve({ filter: /^cjs-core-entry$/ }, () => ({
            path: "cjs-core-entry",
            namespace: "cjs-core",
          }));
          b.onLoad({ filter: /.*/, namespace: "cjs-core" }, () => ({
            contents: shared.map((path) => `export * from ${JSON.stringify(path)};`).join("\n"),
            resolveDir: pkgDir,
            loader: "js",
          }));
        },
      },
    ],
  });
  // 2. The entries, with every import of a root module turned into `require(core)`.
  const rest = await run({
    entryPoints: entries,
    plugins: [
      {
        name: "cjs-import-core",
        setup(b) {
          const skip = Symbol("skip");
          b.onResolve({ filter: /^\./ }, async (args) => {
            if (args.pluginData === skip) return undefined;
            const { path, errors } = await b.resolve(args.path, {
              kind: args.kind,
              importer: args.importer,
              resolveDir: args.resolveDir,
              pluginData: skip,
            });
            return errors.length === 0 && rootModules.has(path) && path !== rootPath
              ? { path: CORE, external: true }
              : undefined;
          });
        },
      },
    ],
  });
  const coreFile = join(outdir, "chunks/core.js");
  for (const { path, text } of [...core.outputFiles, ...rest.outputFiles]) {
    let out = text;
    if (out.includes(CORE)) {
      let spec = relative(dirname(path), coreFile);
      if (!spec.startsWith(".")) spec = `./${spec}`;
      out = out.replaceAll(JSON.stringify(CORE), JSON.stringify(spec));
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, out);
  }
  writeFileSync(join(outdir, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
  return outdir;
}

/**
 * Copy the .d.ts files of `staging` (not those already under cjs/) into `staging/cjs`: the older
 * layout, for a package whose `require` condition still names its own `types` under dist/cjs.
 */
export function copyDeclarations(staging) {
  const outdir = join(staging, "cjs");
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === outdir) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".d.ts")) {
        const target = join(outdir, relative(staging, path));
        if (!existsSync(dirname(target))) mkdirSync(dirname(target), { recursive: true });
        cpSync(path, target);
      }
    }
  };
  walk(staging);
}
