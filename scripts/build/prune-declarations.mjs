// The .d.ts files a package's types need: tsc writes one per source file, but a consumer's
// compiler only ever opens those reachable from the type entry points the manifest names
// (`types`, the `types` conditions of `exports`, `typesVersions`). The others describe internal
// modules no public type mentions; shipping them only makes the install bigger (about 100 KB of
// the harness's 930 KB of declarations).
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/** Every `.d.ts` path (relative to the package) named anywhere in `value` (manifest fields). */
function declarationPaths(value, out = new Set()) {
  if (typeof value === "string") {
    if (value.endsWith(".d.ts")) out.add(normalize(value));
  } else if (value !== null && typeof value === "object") {
    for (const inner of Object.values(value)) declarationPaths(inner, out);
  }
  return out;
}

/** Specifiers a declaration file imports, re-exports or references (relative ones only). */
const RELATIVE_IMPORT =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|<reference\s+path=)["'](\.{1,2}\/[^"']+)["']/g;

function declarationFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) declarationFiles(path, out);
    else if (entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/**
 * Delete from `built` (the staging copy of the package's `distName` folder) every `.d.ts` that no
 * type entry point of `manifest` reaches. Returns the number of files removed; removes nothing
 * when the manifest names no entry point in that folder (nothing to walk from).
 */
export function pruneDeclarations(built, manifest, distName = "dist") {
  const entries = [
    ...declarationPaths([manifest.types, manifest.typings, manifest.exports, manifest.typesVersions]),
  ]
    .filter((path) => path.startsWith(`${distName}/`))
    .map((path) => join(built, relative(distName, path)));
  if (entries.length === 0) return 0;
  const reached = new Set();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop();
    if (reached.has(file) || !existsSync(file)) continue;
    reached.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      const target = join(dirname(file), specifier);
      if (target.endsWith(".d.ts")) queue.push(target);
      else if (target.endsWith(".js")) queue.push(`${target.slice(0, -3)}.d.ts`);
      else queue.push(`${target}.d.ts`, join(target, "index.d.ts"));
    }
  }
  let removed = 0;
  for (const file of declarationFiles(built)) {
    if (reached.has(file)) continue;
    rmSync(file);
    removed++;
  }
  return removed;
}
