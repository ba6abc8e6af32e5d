import { describe, expect, it } from "vitest";
import * as embeddings from "../src/embeddings/index.js";
import * as root from "../src/index.js";
import * as multimodal from "../src/multimodal/index.js";
import * as toolCalling from "../src/tool-calling/index.js";

describe("text tool-call dialects, multimodal and embeddings exports", () => {
  it.each([
    ["tool-calling", toolCalling],
    ["multimodal", multimodal],
    ["embeddings", embeddings],
  ] as const)("the root index re-exports every runtime export of %s", (_name, folder) => {
    const rootExports = root as Record<string, unknown>;
    expect(Object.keys(folder).length).toBeGreaterThan(3);
    for (const [name, value] of Object.entries(folder)) expect(rootExports[name], name).toBe(value);
  });
});
