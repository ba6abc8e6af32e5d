import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docFiles, docMarkdownFiles } from "./doc-snippets.js";

// The docs point readers at files: "the loop is in packages/harness/src/agent-loop/run-loop.ts",
// "tested by packages/harness/test/durable-crash.integration.test.ts", links to other pages. A
// file moved or renamed (folders re-ranked, a test split) leaves a pointer to nothing; this test
// fails then, naming the page, the line and the path.
const root = fileURLToPath(new URL("../..", import.meta.url));
const packages = readdirSync(join(root, "packages"));

/** A file path in backticks: a repository folder first, a file extension last, no pattern. */
const CODE_PATH =
  /`((?:packages|test|bench|examples|scripts|docs|\.ci)\/[\w./-]+\.(?:ts|mts|mjs|js|json|md|sh))`/g;
/** A Markdown link to a local file (no scheme, no pure anchor). */
const LINK = /\]\((?![a-z]+:|#)([^)\s#]+)(?:#[^)]*)?\)/g;

/** Where a backticked path may live: from the repository root, or inside one package. */
function resolvesInRepo(path: string): boolean {
  if (existsSync(join(root, path))) return true;
  return packages.some((name) => existsSync(join(root, "packages", name, path)));
}

function brokenPointers(): string[] {
  const broken: string[] = [];
  for (const [file, text] of docFiles(root, docMarkdownFiles(root))) {
    text.split("\n").forEach((line, i) => {
      for (const [, path] of line.matchAll(CODE_PATH)) {
        if (path !== undefined && !resolvesInRepo(path)) broken.push(`${file}:${i + 1}: \`${path}\``);
      }
      for (const [, target] of line.matchAll(LINK)) {
        if (target !== undefined && !existsSync(join(root, dirname(file), target))) {
          broken.push(`${file}:${i + 1}: link ${target}`);
        }
      }
    });
  }
  return broken;
}

describe("the docs' pointers to files", () => {
  it("name files that exist (backticked paths and local links in README.md and docs/)", () => {
    expect(brokenPointers()).toEqual([]);
  });
});
