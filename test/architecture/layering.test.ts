import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const src = path.join(repo, "packages/harness/src");
const contracts = path.join(src, "contracts");
const rel = (file: string) => path.relative(src, file).split(path.sep).join("/");

function contractFiles(): string[] {
  return fs
    .readdirSync(contracts)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(contracts, f));
}

// Where contracts/ sits among the folders (above the run context, below every feature) is
// checked with every other folder by folder-layers.test.ts.
describe("layering: harness contracts", () => {
  it("contracts/ holds only types: no runtime statement, only type-only imports and exports", () => {
    const offenders: string[] = [];
    for (const file of contractFiles()) {
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        const typeOnly =
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true) ||
          (ts.isExportDeclaration(statement) && statement.isTypeOnly);
        if (!typeOnly) offenders.push(`${rel(file)}: ${statement.getText(source).split("\n")[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
