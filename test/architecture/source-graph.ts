// The import graph of the packages' TypeScript sources, read with TypeScript's own import scanner
// (`ts.preProcessFile`), so every form counts: `import`, `import type`, `export ... from`,
// `export type ... from` and `import("...")`. Only relative imports between source files are edges
// (package imports such as `@tinyagents/inference` cross a package boundary on purpose).
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

/** Test files, type tests and fixtures are not part of the shipped graph. */
const isSourceFile = (file: string) =>
  /\.(ts|tsx|mts)$/.test(file) &&
  !/\.(test|test-d|fixture)\.(ts|tsx|mts)$/.test(file) &&
  !file.endsWith(".d.ts");

function walk(dir: string, out: string[]): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (isSourceFile(full)) out.push(full);
  }
  return out;
}

/** Absolute source file -> the source files it imports (relative imports only). */
export type ImportGraph = Map<string, Set<string>>;

/** The graph of every source file under the `src` folders below `roots`. */
export function importGraph(roots: readonly string[]): ImportGraph {
  const files = roots
    .filter((root) => fs.existsSync(root))
    .flatMap((root) => walk(path.resolve(root), []))
    .filter((file) => file.split(path.sep).includes("src"));
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | undefined => {
    const base = path.resolve(path.dirname(from), spec);
    const stem = base.replace(/\.(js|mjs|ts|mts)$/, "");
    for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(base, "index.ts")]) {
      if (known.has(candidate)) return candidate;
    }
    return undefined;
  };
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const imports = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles;
    const targets = new Set<string>();
    for (const { fileName } of imports) {
      if (!fileName.startsWith(".")) continue;
      const target = resolve(file, fileName);
      if (target !== undefined && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every import cycle: the strongly connected components with more than one file (Tarjan). */
export function importCycles(graph: ImportGraph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
