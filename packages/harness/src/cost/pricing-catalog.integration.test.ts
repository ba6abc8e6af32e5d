/** The generated pricing catalog against its generator (a child process: integration tier). */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("the generated pricing catalog", () => {
  it("is exactly what scripts/refresh-pricing.mjs makes from the pinned @pydantic/genai-prices", () => {
    const script = fileURLToPath(new URL("../../../../scripts/refresh-pricing.mjs", import.meta.url));
    const out = execFileSync(process.execPath, [script, "--check"], { encoding: "utf8", timeout: 120_000 });
    expect(out).toContain("pricing catalog is current");
  }, 120_000);
});
