import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkFolderLayers, type FolderLayers } from "./folder-layers.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const layersFile = fileURLToPath(new URL("./folder-layers.json", import.meta.url));
const layers = (JSON.parse(fs.readFileSync(layersFile, "utf8")) as { packages: FolderLayers }).packages;

describe("folders are layers", () => {
  const report = checkFolderLayers(repo, layers);

  it("every folder of every package's src/ has exactly one layer in folder-layers.json", () => {
    // On failure: add the new folder to the layer it belongs to (above every folder it imports,
    // below every folder that imports it), or drop the entry of a folder that is gone.
    expect({ unranked: report.unranked, stale: report.stale, duplicated: report.duplicated }).toEqual({
      unranked: [],
      stale: [],
      duplicated: [],
    });
  });

  it("every import between folders goes down a layer, so no folders import each other in a circle", () => {
    // On failure: each line names the file import that goes up. Move what both sides need into
    // the lower folder (types shared by features: contracts/), or split the file that mixes layers.
    expect(report.upward).toEqual([]);
    expect(report.cycles).toEqual([]);
  });

  describe("the checker", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "folder-layers-"));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    write("packages/p/src/base/base.ts", "export type Base = number;\n");
    write(
      "packages/p/src/feature/feature.ts",
      'import type { Base } from "../base/base.js";\nexport type F = Base;\n',
    );
    write(
      "packages/p/src/feature/index.ts",
      'export * from "./feature.js";\nexport * from "./sub/sub.js";\n',
    );
    write(
      "packages/p/src/feature/sub/sub.ts",
      'import type { F } from "../feature.js";\nexport type S = F;\n',
    );
    write("packages/p/src/index.ts", 'export * from "./feature/index.js";\n');
    write("packages/p/src/base/base.test.ts", 'import "../feature/feature.js";\n');

    it("accepts imports that go down, a folder's index re-exporting its subfolders, and ignores tests", () => {
      const ok = checkFolderLayers(dir, {
        "packages/p/src": [["base"], ["feature"], ["feature/sub"], ["."]],
      });
      expect(ok).toEqual({ unranked: [], stale: [], duplicated: [], upward: [], cycles: [] });
    });

    it("names the import that goes up, a folder without a layer, a stale one and a duplicate", () => {
      const bad = checkFolderLayers(dir, {
        "packages/p/src": [["feature", "gone"], ["base"], ["feature/sub", "gone"]],
      });
      expect(bad.upward).toEqual([
        "packages/p/src/feature/feature.ts -> packages/p/src/base/base.ts: feature (layer 0) imports base (layer 1) of packages/p/src",
      ]);
      expect(bad.unranked).toEqual(["packages/p/src: ."]);
      expect(bad.stale).toEqual(["packages/p/src: gone"]);
      expect(bad.duplicated).toEqual(["packages/p/src: gone"]);
    });

    it("finds a folder cycle and the sideways import of two folders in one layer", () => {
      write("cyclic/packages/q/src/a/a.ts", 'import type { B } from "../b/b.js";\nexport type A = B;\n');
      write("cyclic/packages/q/src/b/b.ts", 'import type { A } from "../a/a.js";\nexport type B = A | 1;\n');
      const report = checkFolderLayers(path.join(dir, "cyclic"), { "packages/q/src": [["a", "b"]] });
      expect(report.upward).toHaveLength(2);
      expect(report.cycles).toEqual([["packages/q/src: a", "packages/q/src: b"]]);
    });
  });
});
