/**
 * The core entry point must never load the optional native dependency: build the package with
 * the real build script (scripts/build/bundle.mjs, JavaScript only) into a temp directory and walk
 * the import graph of `dist/index.js`. Only `dist/sqlite/index.js` may reference `better-sqlite3`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("../", import.meta.url));
let out: string;

/** Every file reachable through relative imports from `entry`, with the bare specifiers they import. */
function importGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    const source = readFileSync(file, "utf8");
    // Static and dynamic imports, and require() calls (the SQLite driver is loaded lazily with
    // require, so the package is only resolved when a store is opened).
    for (const match of source.matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)) {
      const specifier = match[1] as string;
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier));
      else bare.add(specifier);
    }
  }
  return { files, bare };
}

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "tinyagents-build-"));
  const bundle = fileURLToPath(new URL("../../../scripts/build/bundle.mjs", import.meta.url));
  const result = spawnSync(process.execPath, [bundle, "--outdir", out, "--js-only"], {
    cwd: packageDir,
    encoding: "utf8",
  });
  if (!existsSync(join(out, "index.js")))
    throw new Error(`build failed:\n${result.stdout}\n${result.stderr}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the built core", () => {
  it("never references better-sqlite3 from the core entry point", () => {
    const core = importGraph(join(out, "index.js"));
    // The bundled entry and the chunk it shares with the subpaths.
    expect(core.files.size).toBeGreaterThanOrEqual(2);
    expect([...core.files].some((f) => f.includes(`${join(out, "sqlite")}`))).toBe(false);
    expect([...core.bare]).not.toContain("better-sqlite3");
    for (const file of core.files) expect(readFileSync(file, "utf8"), file).not.toContain("better-sqlite3");
  });

  it("loads it only from the /sqlite subpath", () => {
    const sqlite = importGraph(join(out, "sqlite", "index.js"));
    expect([...sqlite.bare]).toContain("better-sqlite3");
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    expect(manifest.exports["./sqlite"]).toEqual({
      types: "./dist/sqlite/index.d.ts",
      default: "./dist/sqlite/index.js",
    });
    expect(manifest.peerDependenciesMeta["better-sqlite3"]).toEqual({ optional: true });
    expect(manifest.dependencies?.["better-sqlite3"]).toBeUndefined();
  });
});
