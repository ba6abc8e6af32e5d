// The harness root is the front door: what a user of `createAgent` needs, and no machinery. Its
// exported names (runtime AND type-only) stay at 160 or fewer; machinery lives behind subpaths
// (entry-points.json). The names are counted syntactically (the TypeScript parser, no type
// checking), following `export * from` into the files it re-exports, so the test takes
// milliseconds.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/build/entry-points.mjs";

/** The most names the harness root may export (issue 33: about 150, never more than 160). */
const ROOT_NAME_LIMIT = 160;

/** The source file a relative module specifier of `from` names (`./a.js` -> `./a.ts`). */
function resolveRelative(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), `${base}.ts`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

const hasExportModifier = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** Every name `file` exports (its own declarations, named re-exports and `export *` targets). */
function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(file)) return names;
  seen.add(file);
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) {
        // `export * from "./x.js"`: everything x exports (less `default`, as the language says).
        const target = (statement.moduleSpecifier as ts.StringLiteral).text;
        for (const name of exportedNames(resolveRelative(file, target), seen)) {
          if (name !== "default") names.add(name);
        }
      } else if (ts.isNamespaceExport(clause)) names.add(clause.name.text);
      else for (const element of clause.elements) names.add(element.name.text);
    } else if (ts.isExportAssignment(statement)) names.add("default");
    else if (hasExportModifier(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
        }
      } else {
        const name = (statement as ts.DeclarationStatement).name;
        if (name !== undefined && ts.isIdentifier(name)) names.add(name.text);
      }
    }
  }
  return names;
}

describe("the harness root entry", () => {
  const root = path.join(repoRoot, "packages/harness/src/index.ts");
  const names = [...exportedNames(root)].sort();

  it(`exports at most ${ROOT_NAME_LIMIT} names, runtime and type-only together`, () => {
    // On failure: the name belongs behind a subpath named for its concern (entry-points.json),
    // unless a user of the front door needs it; then make room by moving machinery off the root.
    expect(
      names.length,
      `the root exports ${names.length} names (limit ${ROOT_NAME_LIMIT}): ${names.join(", ")}`,
    ).toBeLessThanOrEqual(ROOT_NAME_LIMIT);
  });

  it("holds the front door (the count is of the real root, not an empty parse)", () => {
    for (const name of ["createAgent", "AgentHarness", "RunOptions", "RunResult", "tool", "formatCost"]) {
      expect(names, name).toContain(name);
    }
  });
});

describe("the name count", () => {
  it("counts declarations, named and type-only re-exports, and follows `export *`", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "root-surface-"));
    try {
      fs.writeFileSync(
        path.join(dir, "leaf.ts"),
        "export const a = 1;\nexport interface B {}\nexport default 3;\nconst hidden = 2;\n",
      );
      fs.writeFileSync(
        path.join(dir, "index.ts"),
        [
          'export * from "./leaf.js";',
          'export { x, type Y as Z } from "./other.js";',
          'export * as ns from "./leaf.js";',
          "export function f() {}",
          "export type T = string;",
        ].join("\n"),
      );
      fs.writeFileSync(path.join(dir, "other.ts"), "export const x = 1;\nexport type Y = 2;\n");
      expect([...exportedNames(path.join(dir, "index.ts"))].sort()).toEqual([
        "B",
        "T",
        "Z",
        "a",
        "f",
        "ns",
        "x",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
