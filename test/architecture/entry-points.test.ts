import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { derivedLists, entryPoints, fieldAt, repoRoot } from "../../scripts/build/entry-points.mjs";

const read = (repo: string, file: string): unknown =>
  JSON.parse(fs.readFileSync(path.join(repo, file), "utf8"));

/** Every derived list that differs from what entry-points.json says, as `file: field`. */
function disagreements(repo: string): string[] {
  const bad: string[] = [];
  for (const [file, fields, expected] of derivedLists(repo)) {
    const actual = fieldAt(read(repo, file), fields);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) bad.push(`${file}: ${fields.join(".")}`);
  }
  return bad;
}

describe("entry points: one list, the others written from it", () => {
  it("package.json exports/typesVersions, tsconfig paths and typedoc entryPoints agree with entry-points.json", () => {
    // On failure: edit entry-points.json (not the derived lists), then `node scripts/build/entry-points.mjs`.
    expect(disagreements(repoRoot)).toEqual([]);
  });

  it("every entry point has its source file", () => {
    const missing = entryPoints()
      .map((e) => `${e.dir}/${e.source}`)
      .filter((file) => !fs.existsSync(path.join(repoRoot, file)));
    expect(missing).toEqual([]);
  });

  describe("the comparison", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "entry-points-"));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const copy = (file: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, file), path.join(dir, file));
    };
    for (const file of new Set(["entry-points.json", ...derivedLists().map(([file]) => file)])) copy(file);

    it("names a subpath added to package.json by hand, and one missing from typesVersions", () => {
      const manifest = read(dir, "packages/harness/package.json") as {
        exports: Record<string, unknown>;
        typesVersions: { "*": Record<string, unknown> };
      };
      manifest.exports["./extra"] = { types: "./dist/extra/index.d.ts", default: "./dist/extra/index.js" };
      delete manifest.typesVersions["*"].testkit;
      fs.writeFileSync(path.join(dir, "packages/harness/package.json"), JSON.stringify(manifest));
      expect(disagreements(dir)).toEqual([
        "packages/harness/package.json: exports",
        "packages/harness/package.json: typesVersions",
      ]);
    });

    it("names the lists a new subpath in entry-points.json still lacks", () => {
      const list = read(dir, "entry-points.json") as { packages: Record<string, { subpaths: string[] }> };
      list.packages["@tinyagents/inference"]?.subpaths.push("extra");
      fs.writeFileSync(path.join(dir, "entry-points.json"), JSON.stringify(list));
      expect(disagreements(dir)).toEqual(
        expect.arrayContaining([
          "packages/inference/package.json: exports",
          "packages/inference/package.json: typesVersions",
          "tsconfig.json: compilerOptions.paths",
          "typedoc.json: entryPoints",
        ]),
      );
    });
  });
});
