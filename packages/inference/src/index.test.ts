import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as clock from "./clock/index.js";
import * as errors from "./errors/index.js";
import * as root from "./index.js";
import * as json from "./json/index.js";
import * as message from "./message/index.js";
import * as model from "./model/index.js";
import * as providerKit from "./provider-kit/index.js";
import * as providers from "./providers/index.js";
import * as tokens from "./tokens/index.js";
import * as usage from "./usage/index.js";

describe("public API", () => {
  it("the root or provider-kit entry re-exports every runtime export of every folder index", () => {
    // The root holds what applications use; the adapters' building blocks are in provider-kit.
    const publicExports = {
      ...(providerKit as Record<string, unknown>),
      ...(root as Record<string, unknown>),
    };
    for (const folder of [clock, errors, json, message, model, providers, tokens, usage]) {
      for (const [name, value] of Object.entries(folder)) expect(publicExports[name], name).toBe(value);
    }
  });

  it("never imports @tinyagents/harness", () => {
    const src = fileURLToPath(new URL(".", import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      expect(readFileSync(`${src}/${file}`, "utf8"), file).not.toMatch(/from\s+["']@tinyagents\/harness/);
    }
  });
});
