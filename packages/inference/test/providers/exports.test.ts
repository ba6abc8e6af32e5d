import { describe, expect, it } from "vitest";
import * as root from "../../src/index.js";
import * as anthropic from "../../src/providers/anthropic/index.js";
import * as ollama from "../../src/providers/ollama/index.js";

describe("native provider exports", () => {
  it.each([
    ["anthropic", anthropic],
    ["ollama", ollama],
  ] as const)("the root index re-exports every runtime export of providers/%s", (_name, folder) => {
    const rootExports = root as Record<string, unknown>;
    for (const [name, value] of Object.entries(folder)) expect(rootExports[name], name).toBe(value);
  });
});
