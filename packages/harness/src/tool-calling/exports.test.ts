import { describe, expect, it } from "vitest";
import * as root from "../index.js";
import * as toolCalling from "./index.js";

describe("tool-calling exports", () => {
  it("the harness root re-exports every runtime export of tool-calling", () => {
    const rootExports = root as Record<string, unknown>;
    for (const [name, value] of Object.entries(toolCalling)) expect(rootExports[name], name).toBe(value);
  });
});
