import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Issue 35: an unknown cost is never printed as a number. The examples run live models too
// (`pickModel`: an unpriced local model has an unknown cost), so they print money through
// `formatCost` ("unknown", "at least $…"), never `cost.total.toFixed(...)`, which reads "$0.000000".
const root = fileURLToPath(new URL(".", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("the examples print cost the way users should", () => {
  it("no example formats a cost total as a bare number", () => {
    const offenders = sources(root).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, at: `${relative(root, file)}:${i + 1}` }))
        .filter(({ line }) => /cost\??\.total\??\.toFixed\(|\bcost\.total\}/.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
