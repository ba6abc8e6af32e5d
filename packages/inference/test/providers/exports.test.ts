import { describe, expect, it } from "vitest";
import * as root from "../../src/index.js";
import * as providerKit from "../../src/provider-kit/index.js";
import * as anthropic from "../../src/providers/anthropic/index.js";
import * as ollama from "../../src/providers/ollama/index.js";

describe("native provider exports", () => {
  it.each([
    ["anthropic", anthropic],
    ["ollama", ollama],
  ] as const)(
    "the root or provider-kit entry re-exports every runtime export of providers/%s",
    (_name, folder) => {
      // The root holds what applications use; the adapters' building blocks are in provider-kit.
      const publicExports = {
        ...(providerKit as Record<string, unknown>),
        ...(root as Record<string, unknown>),
      };
      for (const [name, value] of Object.entries(folder)) expect(publicExports[name], name).toBe(value);
    },
  );
});
