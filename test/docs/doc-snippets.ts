import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** One fenced TypeScript block of a Markdown file. */
export interface DocSnippet {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Words after the language on the fence line (`ts fragment` -> `["fragment"]`). */
  tags: string[];
  code: string;
}

/**
 * The info-string tag that marks a TypeScript block as intentionally partial (a signature, an
 * excerpt that refers to names defined elsewhere): ```` ```ts fragment ````. It is not
 * type-checked. Every other ```` ```ts ```` / ```` ```typescript ```` block must compile as a
 * module on its own.
 */
export const FRAGMENT_TAG = "fragment";

const OPEN = /^( {0,3})(`{3,}|~{3,})\s*([\w+-]*)(.*)$/;

/** The fenced TypeScript blocks of `markdown` (CommonMark fences: ``` or ~~~, 3+ long, <= 3 spaces indent). */
export function extractSnippets(file: string, markdown: string): DocSnippet[] {
  const lines = markdown.split("\n");
  const snippets: DocSnippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, indent = "", fence = "", lang = "", rest = ""] = open;
    const close = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end] ?? "")) end++;
    if (lang === "ts" || lang === "typescript") {
      const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
      snippets.push({
        file,
        line: i + 1,
        tags: rest.trim().split(/\s+/).filter(Boolean),
        code: body.join("\n"),
      });
    }
    i = end;
  }
  return snippets;
}

/** A snippet's type errors, formatted `file:line: TSnnnn message` with the Markdown line. */
export interface SnippetResult {
  snippet: DocSnippet;
  errors: string[];
}

/**
 * Type-check each snippet as its own ES module (`.mts`, so top-level `await` works) in a
 * consumer's setting: plain `strict`, `module: nodenext`, the packages resolved like a user's
 * project would (through `node_modules` to the BUILT declarations, so run `npm run build`
 * first). The files are written under `dir`, which must be inside the repository so bare
 * imports (`zod`, `@tinyagents/harness`) resolve from its node_modules.
 */
export function typecheckSnippets(snippets: readonly DocSnippet[], dir: string): SnippetResult[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = snippets.map((snippet, index) => {
    const name = `${snippet.file.replace(/[^\w]+/g, "_")}_L${snippet.line}_${index}.mts`;
    const path = join(dir, name);
    // `export {}`: a module even when the snippet imports nothing (no global name clashes).
    writeFileSync(path, `${snippet.code}\nexport {};\n`);
    return path;
  });
  const program = ts.createProgram(files, {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
    noEmit: true,
    skipLibCheck: true,
  });
  return snippets.map((snippet, index) => {
    const source = program.getSourceFile(files[index] as string);
    const diagnostics = source === undefined ? [] : ts.getPreEmitDiagnostics(program, source);
    const errors = diagnostics
      .filter((d) => d.file === source)
      .map((d) => {
        const at = d.start === undefined ? 0 : (source?.getLineAndCharacterOfPosition(d.start).line ?? 0);
        const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        return `${snippet.file}:${snippet.line + 1 + at}: TS${d.code} ${message}`;
      });
    return { snippet, errors };
  });
}

/** README.md and every Markdown file under docs/ (subfolders too), sorted, as absolute paths. */
export function docMarkdownFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return walk(path);
        return entry.name.endsWith(".md") ? [path] : [];
      });
  return [join(root, "README.md"), ...walk(join(root, "docs"))];
}

/** The given Markdown files of the repository at `root`, as `[relative path, text]`. */
export function docFiles(root: string, names: readonly string[]): [string, string][] {
  return names.map((path) => [relative(root, path), readFileSync(path, "utf8")]);
}
