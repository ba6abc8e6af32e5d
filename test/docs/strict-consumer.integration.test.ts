/**
 * A strict consumer (issue 35): `strict: true`, `skipLibCheck: false`, WITHOUT
 * `exactOptionalPropertyTypes` (npm's and tsc --init's default), `module: nodenext`, compiling
 * every README snippet and a file importing every entry point of every package — against the
 * BUILT declarations (`npm test` builds first). Any type error in a package's own `.d.ts` (such as
 * TS2411 in the CLI's cli-store.d.ts) or in a README snippet fails here. Third-party declarations
 * are not ours to fix and are not counted.
 *
 * Integration tier: runs the TypeScript compiler over the packages' declarations (~20-30 s on a
 * loaded 2-core machine; budget 60 s).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { extractSnippets, FRAGMENT_TAG } from "./doc-snippets.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = join(root, "node_modules/.cache/tinyagents-strict-consumer");

/** Every `exports` entry of the workspace packages, as import specifiers. */
function entryPoints(): string[] {
  const out: string[] = [];
  // restate and dbos are left out: their engine SDKs' declarations double the time.
  for (const pkg of ["inference", "harness", "cli", "postgres"]) {
    const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8")) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    for (const sub of Object.keys(manifest.exports ?? { ".": "" }))
      out.push(sub === "." ? manifest.name : `${manifest.name}/${sub.slice(2)}`);
  }
  return out;
}

describe("a strict consumer (skipLibCheck false, no exactOptionalPropertyTypes)", () => {
  it("compiles every package's declarations and every README snippet", () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const entries = entryPoints();
    const all = join(dir, "every-entry.mts");
    writeFileSync(
      all,
      `${entries.map((e, i) => `import type * as e${i} from "${e}";`).join("\n")}\n` +
        `export type All = [${entries.map((_, i) => `typeof e${i}`).join(", ")}];\n`,
    );
    const readme = extractSnippets("README.md", readFileSync(join(root, "README.md"), "utf8")).filter(
      (s) => !s.tags.includes(FRAGMENT_TAG),
    );
    expect(readme.length).toBeGreaterThan(0);
    const files = [
      all,
      ...readme.map((snippet, i) => {
        const path = join(dir, `readme-${i}-L${snippet.line}.mts`);
        writeFileSync(path, `${snippet.code}\nexport {};\n`);
        return path;
      }),
    ];
    const program = ts.createProgram(files, {
      strict: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      noEmit: true,
    });
    const ours = (file: string) => {
      const path = relative(root, file).split(sep).join("/");
      return (
        /^packages\/[^/]+\/dist\//.test(path) ||
        path.startsWith("node_modules/.cache/tinyagents-strict-consumer/")
      );
    };
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && ours(d.file.fileName))
      .map((d) => {
        const file = d.file as ts.SourceFile;
        const line = d.start === undefined ? 0 : file.getLineAndCharacterOfPosition(d.start).line + 1;
        return `${relative(root, file.fileName)}:${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
    expect(errors).toEqual([]);
  }, 120_000);
});
