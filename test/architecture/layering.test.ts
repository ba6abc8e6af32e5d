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

// contracts/ is the bottom layer of the harness (folder-layers.json); its place among the other
// folders is checked with every folder by folder-layers.test.ts.
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

  it("contracts/ imports nothing of the harness: only its own files and @tinyagents/inference", () => {
    // On failure: move the type the contract needs down into contracts/ (the old home re-exports
    // it), or describe what the contract needs of it as an interface here (see run-context.ts).
    const offenders: string[] = [];
    for (const file of contractFiles()) {
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        const from =
          ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
            ? statement.moduleSpecifier
            : undefined;
        if (from === undefined || !ts.isStringLiteral(from)) continue;
        const ok =
          from.text === "@tinyagents/inference" ||
          (from.text.startsWith("./") && !from.text.includes("/", 2));
        if (!ok) offenders.push(`${rel(file)}: ${from.text}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
