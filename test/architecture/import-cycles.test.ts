import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles, importGraph } from "./source-graph.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const rel = (file: string) => path.relative(repo, file).split(path.sep).join("/");

describe("import cycles", () => {
  it("no source files of the packages import each other in a circle (type-only imports included)", () => {
    const cycles = importCycles(importGraph([path.join(repo, "packages")])).map((cycle) => cycle.map(rel));
    // On failure: move the type both sides need to packages/harness/src/contracts/ (types only,
    // importing nothing above it), or split the file so the shared part stands alone.
    expect(cycles).toEqual([]);
  });

  describe("the detector", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "import-cycles-"));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };

    it("finds a cycle made only of type imports and re-exports, through an index", () => {
      write("p/src/a/a.ts", 'import type { B } from "../b/index.js";\nexport interface A { b?: B }\n');
      write("p/src/b/index.ts", 'export type { B } from "./b.js";\n');
      write("p/src/b/b.ts", 'import type { A } from "../a/a.js";\nexport interface B { a?: A }\n');
      write("p/src/c.ts", 'const load = () => import("./a/a.js");\nexport { load };\n');
      write("p/src/a/a.test.ts", 'import "../c.js";\n');
      const cycles = importCycles(importGraph([dir])).map((cycle) => cycle.map((f) => path.relative(dir, f)));
      expect(cycles).toEqual([["p/src/a/a.ts", "p/src/b/b.ts", "p/src/b/index.ts"]]);
    });

    it("finds a dynamic import() cycle and ignores test files and package imports", () => {
      write("q/src/x.ts", 'export const x = () => import("./y.js");\nimport "@tinyagents/inference";\n');
      write("q/src/y.ts", 'export { x } from "./x.js";\n');
      write("q/src/y.test.ts", 'import "./x.js";\n');
      const cycles = importCycles(importGraph([path.join(dir, "q")])).map((c) =>
        c.map((f) => path.basename(f)),
      );
      expect(cycles).toEqual([["x.ts", "y.ts"]]);
    });
  });
});
