import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type DocSnippet,
  docFiles,
  docMarkdownFiles,
  extractSnippets,
  FRAGMENT_TAG,
  typecheckSnippets,
} from "./doc-snippets.js";

// Integration tier (the TypeScript compiler over every snippet; minutes on a cold cache).
// Every TypeScript block of README.md and docs/**/*.md compiles in a consumer's setting (plain
// `strict`, against the BUILT packages: `npm test` builds before Vitest). Mark an intentionally
// partial block with ```ts fragment; use another language tag (sh, json, text) for non-TS.
const root = fileURLToPath(new URL("../..", import.meta.url));
const cache = join(root, "node_modules/.cache/tinyagents-doc-snippets");
const markdown = docMarkdownFiles(root);
const snippets = docFiles(root, markdown).flatMap(([file, text]) => extractSnippets(file, text));
const checked = snippets.filter((s) => !s.tags.includes(FRAGMENT_TAG));

describe("the docs' TypeScript snippets", () => {
  let results: Map<DocSnippet, string[]>;
  beforeAll(() => {
    const broken: DocSnippet = {
      file: "broken.md",
      line: 1,
      tags: [],
      code: 'import { AgentHarness } from "@tinyagents/harness";\nconst n: number = new AgentHarness();',
    };
    results = new Map(typecheckSnippets([...checked, broken], cache).map((r) => [r.snippet, r.errors]));
  }, 300_000);

  it("are found (README and docs/ have TypeScript examples)", () => {
    expect(checked.length).toBeGreaterThan(10);
    expect(checked.some((s) => s.file === "README.md")).toBe(true);
  });

  it("the checker reports a type error in a snippet, at its Markdown line", () => {
    const broken = [...results].find(([s]) => s.file === "broken.md")?.[1];
    expect(broken).toEqual([
      expect.stringMatching(/^broken\.md:3: TS2322 Type 'AgentHarness.*' is not assignable/),
    ]);
  });

  it("every one compiles (plain strict, against the built packages)", () => {
    const failures = checked.flatMap((s) => results.get(s) ?? [`${s.file}:${s.line}: not checked`]);
    expect(failures).toEqual([]);
  });
});
