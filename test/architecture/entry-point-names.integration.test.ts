// The names the entry points export. Two entry points of one package never export the same name
// for different things: `X` from `@tinyagents/harness` and `X` from `@tinyagents/harness/testkit`
// must be one declaration re-exported (then either import is the same thing), never two. And
// every exported name is documented (JSDoc on its declaration). Integration tier: it builds a
// TypeScript program over every entry point (a few seconds of type checking). Budget: ~30 s.
import * as path from "node:path";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { entryPoints, repoRoot } from "../../scripts/build/entry-points.mjs";

/** `package -> name -> declaration -> entry points` for every exported name of `files`. */
function exportedDeclarations(files: { packageName: string; specifier: string; file: string }[]) {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(repoRoot, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error("tsconfig.json did not parse");
  const program = ts.createProgram(
    files.map((f) => f.file),
    config.options,
  );
  const checker = program.getTypeChecker();
  const result = new Map<string, Map<string, Map<string, string[]>>>();
  const undocumented: string[] = [];
  for (const { packageName, specifier, file } of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`${specifier}: ${file} is not a module`);
    const names = result.get(packageName) ?? new Map<string, Map<string, string[]>>();
    result.set(packageName, names);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = target.declarations?.[0];
      if (target.getDocumentationComment(checker).length === 0)
        undocumented.push(`${specifier}: ${exported.name}`);
      const where =
        declaration === undefined
          ? `${specifier}#${exported.name}`
          : `${path.relative(repoRoot, declaration.getSourceFile().fileName)}:${declaration.pos}`;
      const declarations = names.get(exported.name) ?? new Map<string, string[]>();
      names.set(exported.name, declarations);
      declarations.set(where, [...(declarations.get(where) ?? []), specifier]);
    }
  }
  return { declarations: result, undocumented };
}

const exported = exportedDeclarations(
  entryPoints().map((e) => ({
    packageName: e.packageName,
    specifier: e.specifier,
    file: path.join(repoRoot, e.dir, e.source),
  })),
);

describe("the names the entry points export", () => {
  it("no name is exported by two entry points of one package for two different declarations", () => {
    const clashes: string[] = [];
    for (const [, names] of exported.declarations) {
      for (const [name, declarations] of names) {
        if (declarations.size < 2) continue;
        const sides = [...declarations].map(
          ([where, from]) => `${from.join(", ")} (${where.replace(/:\d+$/, "")})`,
        );
        clashes.push(`${name}: ${sides.join(" vs ")}`);
      }
    }
    // On failure: rename one of them, or re-export the one declaration from both entry points.
    expect(clashes).toEqual([]);
  });

  it("every name an entry point exports is documented (a JSDoc comment on its declaration)", () => {
    // On failure: say in one sentence what the name is for, on its declaration.
    expect([...new Set(exported.undocumented)]).toEqual([]);
  });
});
