/** The build keeps only the declarations a consumer's compiler can reach from the manifest. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pruneDeclarations } from "../../scripts/build/prune-declarations.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A built folder holding `files` (path -> contents). */
function built(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "prune-dts-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("pruneDeclarations", () => {
  it("keeps what the entry points reach through every kind of reference, removes the rest", () => {
    const dir = built({
      "index.d.ts": 'export * from "./a.js";\nexport type { B } from "./sub/b.js";\n',
      "a.d.ts": 'export declare const a: import("./c.js").C;\n',
      "c.d.ts": "export type C = number;\n",
      "sub/b.d.ts": 'import type { D } from "../d.js";\nexport type B = D;\n',
      "d.d.ts": "export type D = string;\n",
      "tools/index.d.ts": 'export { e } from "./e.js";\n',
      "tools/e.d.ts": "export declare const e: 1;\n",
      "internal.d.ts": "export declare const hidden: 2;\n",
      "sub/unused.d.ts": 'export * from "../internal.js";\n',
      "index.js": "export {};\n",
    });
    const manifest = {
      types: "./dist/index.d.ts",
      exports: { ".": { types: "./dist/index.d.ts" }, "./tools": { types: "./dist/tools/index.d.ts" } },
    };
    expect(pruneDeclarations(dir, manifest)).toBe(2);
    for (const kept of ["index.d.ts", "a.d.ts", "c.d.ts", "sub/b.d.ts", "d.d.ts", "tools/e.d.ts", "index.js"])
      expect(existsSync(join(dir, kept)), kept).toBe(true);
    expect(existsSync(join(dir, "internal.d.ts"))).toBe(false);
    expect(existsSync(join(dir, "sub/unused.d.ts"))).toBe(false);
  });

  it("removes nothing when the manifest names no entry point in the folder", () => {
    const dir = built({ "index.d.ts": "export {};\n", "other.d.ts": "export {};\n" });
    expect(pruneDeclarations(dir, { main: "./dist/index.js" })).toBe(0);
    expect(existsSync(join(dir, "other.d.ts"))).toBe(true);
  });
});
