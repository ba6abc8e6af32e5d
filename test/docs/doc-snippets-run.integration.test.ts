import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { docFiles, docMarkdownFiles, extractSnippets } from "./doc-snippets.js";
import { isRunnable, runSnippets, type SnippetRun } from "./run-snippets.js";

// Integration tier (spawns one `node` per snippet). Every ```ts run block of README.md and
// docs/**/*.md is EXECUTED offline against the built packages (`npm test` builds before Vitest):
// it must exit 0 within its time limit. Time budget: about 1 s per runnable snippet on a shared
// 2-core machine (two at a time), plus ~4 s for the runner's own fixtures; well under 60 s.
const root = fileURLToPath(new URL("../..", import.meta.url));
const cache = join(root, "node_modules/.cache/tinyagents-doc-snippets-run");

const markdown = docMarkdownFiles(root);
const runnable = docFiles(root, markdown)
  .flatMap(([file, text]) => extractSnippets(file, text))
  .filter(isRunnable);

// A Markdown page whose runnable blocks pass, throw, exit non-zero, reach for the network, hang,
// and look for an API key; the untagged block would throw if it were run.
const fixtureMarkdown = [
  "# Fixture", // line 1
  "```ts run", // 2
  'import { z } from "zod";',
  'const city: string = z.string().parse("Oslo");',
  "console.log(city);",
  "```",
  "```ts run", // 7
  'import { z } from "zod";',
  "z.object({ city: z.string() }).parse({ city: 42 }); // throws",
  "```",
  "```ts run", // 11
  "process.exitCode = 3;",
  "```",
  "```ts run", // 14
  'await fetch("https://api.openai.com/v1/models");',
  "```",
  "```ts run", // 17
  "setInterval(() => {}, 1_000); // never exits",
  "```",
  "```ts run", // 20
  'if (process.env.OPENAI_API_KEY !== undefined) throw new Error("key leaked");',
  "```",
  "```ts", // 23: type-checked only, never executed
  'throw new Error("not runnable");',
  "```",
].join("\n");

describe("the runner of ```ts run snippets", () => {
  let runs: SnippetRun[];
  beforeAll(async () => {
    const key = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-test-not-for-snippets";
    const snippets = extractSnippets("fixture.md", fixtureMarkdown).filter(isRunnable);
    runs = await runSnippets(snippets, join(cache, "fixtures"), { timeoutMs: 3_000 }).finally(() => {
      if (key === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = key;
    });
  }, 30_000);

  it("runs only the blocks tagged ```ts run", () => {
    expect(runs.map((r) => r.snippet.line)).toEqual([2, 7, 11, 14, 17, 20]);
  });

  it("passes a snippet that exits 0 (types erased, bare imports resolved)", () => {
    expect(runs[0]?.failure).toBeUndefined();
  });

  it("fails a snippet that throws, with its Markdown file:line and the error", () => {
    expect(runs[1]?.failure).toMatch(/^fixture\.md:7: exited with code 1 \(thrown at fixture\.md:9\)\n/);
    expect(runs[1]?.failure).toContain("ZodError");
    expect(runs[1]?.failure).toContain("expected string, received number");
  });

  it("fails a snippet that exits non-zero", () => {
    expect(runs[2]?.failure).toMatch(/^fixture\.md:11: exited with code 3$/);
  });

  it("fails a snippet that reaches for the network, naming the host", () => {
    expect(runs[3]?.failure).toMatch(/^fixture\.md:14: exited with code 1 \(thrown at fixture\.md:15\)\n/);
    expect(runs[3]?.failure).toContain("https://api.openai.com: runnable snippets must stay offline");
  });

  it("kills and fails a snippet that does not finish in time", () => {
    expect(runs[4]?.failure).toMatch(
      /^fixture\.md:17: did not finish within 3000 ms \(killed with SIGKILL\)/,
    );
  });

  it("does not hand the caller's environment (API keys) to a snippet", () => {
    expect(runs[5]?.failure).toBeUndefined();
  });
});

describe("the docs' runnable snippets", () => {
  let runs: SnippetRun[];
  beforeAll(async () => {
    runs = await runSnippets(runnable, join(cache, "docs"));
  }, 240_000);

  it("are found (README and docs/ mark offline examples ```ts run)", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(10);
  });

  it("every one runs offline and exits 0", () => {
    expect(runs.flatMap((r) => (r.failure === undefined ? [] : [r.failure]))).toEqual([]);
  });
});
