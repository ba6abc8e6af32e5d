import { describe, expect, it } from "vitest";
import { extractSnippets } from "./doc-snippets.js";
import { isRunnable } from "./run-snippets.js";

// How the docs' TypeScript blocks are found and tagged; compiling them (against the built
// packages, with the TypeScript compiler) is doc-snippets.integration.test.ts, running the
// ```ts run ones doc-snippets-run.integration.test.ts.
describe("extractSnippets", () => {
  it("finds ts/typescript fences with their line and tags, and nothing else", () => {
    const md = [
      "# t", //
      "```ts",
      "const a = 1;",
      "```",
      "```sh",
      "npm test",
      "```",
      "````typescript fragment",
      "declare const b: number;",
      "```",
      "still inside the 4-backtick fence",
      "````",
      "  ```ts",
      "  const c = 2;",
      "  ```",
    ].join("\n");
    expect(extractSnippets("x.md", md)).toEqual([
      { file: "x.md", line: 2, tags: [], code: "const a = 1;" },
      {
        file: "x.md",
        line: 8,
        tags: ["fragment"],
        code: "declare const b: number;\n```\nstill inside the 4-backtick fence",
      },
      { file: "x.md", line: 13, tags: [], code: "const c = 2;" },
    ]);
  });
});

describe("isRunnable", () => {
  it("is true only for blocks tagged ```ts run (executed by doc-snippets-run.integration.test.ts)", () => {
    const md = ["```ts run", "1;", "```", "```ts", "2;", "```", "```ts fragment", "3;", "```"].join("\n");
    expect(extractSnippets("x.md", md).map(isRunnable)).toEqual([true, false, false]);
  });
});
