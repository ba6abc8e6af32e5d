// The packages' entry points come from one list, entry-points.json at the repository root; this
// script writes every other list from it (run it after editing that file):
//   node scripts/build/entry-points.mjs
// - packages/*/package.json: `exports` (`{ types, default }` per entry, which bundle.mjs builds)
//   and `typesVersions` (subpath declarations for `moduleResolution: node10` consumers);
// - tsconfig.json: `compilerOptions.paths` (each entry to its source, for typechecking the repo);
// - typedoc.json: `entryPoints` (the API reference), less the entries of `notInApiReference`.
// vitest.config.ts reads entry-points.json itself. test/architecture/entry-points.test.ts fails
// when a written list and the source disagree (same comparison as `derivedLists`).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Every entry point: `{ specifier, packageName, dir, subpath, source, js, dts }`, in list order. */
export function entryPoints(repo = repoRoot) {
  const list = JSON.parse(readFileSync(join(repo, "entry-points.json"), "utf8"));
  const entries = [];
  for (const [packageName, { dir, subpaths }] of Object.entries(list.packages)) {
    for (const subpath of [".", ...subpaths]) {
      const stem = subpath === "." ? "index" : `${subpath}/index`;
      entries.push({
        specifier: subpath === "." ? packageName : `${packageName}/${subpath}`,
        packageName,
        dir,
        subpath,
        source: `src/${stem}.ts`,
        js: `./dist/${stem}.js`,
        dts: `./dist/${stem}.d.ts`,
        inApiReference: !list.notInApiReference.includes(
          subpath === "." ? packageName : `${packageName}/${subpath}`,
        ),
      });
    }
  }
  return entries;
}

/**
 * What each derived list must hold: `[file, field path, value]` triples (`file` relative to the
 * repo; a field path like `["compilerOptions", "paths"]`; `undefined` means the field is absent).
 */
export function derivedLists(repo = repoRoot) {
  const entries = entryPoints(repo);
  const lists = [];
  for (const dir of [...new Set(entries.map((e) => e.dir))]) {
    const own = entries.filter((e) => e.dir === dir);
    const exports = Object.fromEntries(
      own.map((e) => [e.subpath === "." ? "." : `./${e.subpath}`, { types: e.dts, default: e.js }]),
    );
    const subs = own.filter((e) => e.subpath !== ".");
    const typesVersions =
      subs.length === 0 ? undefined : { "*": Object.fromEntries(subs.map((e) => [e.subpath, [e.dts]])) };
    lists.push([`${dir}/package.json`, ["exports"], exports]);
    lists.push([`${dir}/package.json`, ["typesVersions"], typesVersions]);
  }
  lists.push([
    "tsconfig.json",
    ["compilerOptions", "paths"],
    Object.fromEntries(entries.map((e) => [e.specifier, [`./${e.dir}/${e.source}`]])),
  ]);
  lists.push([
    "typedoc.json",
    ["entryPoints"],
    entries.filter((e) => e.inApiReference).map((e) => `${e.dir}/${e.source}`),
  ]);
  return lists;
}

/** The value at `fields` of `object` (undefined when a field is missing). */
export function fieldAt(object, fields) {
  return fields.reduce((value, key) => (value === undefined ? undefined : value[key]), object);
}

function writeLists(repo) {
  const files = new Map();
  for (const [file, fields, value] of derivedLists(repo)) {
    const json = files.get(file) ?? JSON.parse(readFileSync(join(repo, file), "utf8"));
    files.set(file, json);
    const parent = fieldAt(json, fields.slice(0, -1));
    const last = fields[fields.length - 1];
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  for (const [file, json] of files) writeFileSync(join(repo, file), `${JSON.stringify(json, null, 2)}\n`);
  // The repository's formatting of JSON (biome), so a rerun changes nothing.
  execFileSync("npx", ["biome", "format", "--write", ...files.keys()], { cwd: repo, stdio: "inherit" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeLists(repoRoot);
