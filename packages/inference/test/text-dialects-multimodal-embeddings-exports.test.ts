import { describe, expect, it } from "vitest";
import * as embeddings from "../src/embeddings/index.js";
import * as root from "../src/index.js";
import * as multimodal from "../src/multimodal/index.js";
import * as providerKit from "../src/provider-kit/index.js";
import * as toolCalling from "../src/tool-calling/index.js";

describe("text tool-call dialects, multimodal and embeddings exports", () => {
  it.each([
    ["tool-calling", toolCalling],
    ["multimodal", multimodal],
    ["embeddings", embeddings],
  ] as const)("the root or provider-kit entry re-exports every runtime export of %s", (_name, folder) => {
    // The root holds what applications use; the adapters' building blocks are in provider-kit.
    const publicExports = {
      ...(providerKit as Record<string, unknown>),
      ...(root as Record<string, unknown>),
    };
    expect(Object.keys(folder).length).toBeGreaterThan(3);
    for (const [name, value] of Object.entries(folder)) expect(publicExports[name], name).toBe(value);
  });
});
