import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { buildWebApp } from "../../../../scripts/build/bundle-web-app.mjs";

const dir = mkdtempSync(join(tmpdir(), "inspector-size-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the inspector's web app as shipped", () => {
  it("fits the budget: at most 200 KB of JS + CSS gzipped", async () => {
    await buildWebApp(join(import.meta.dirname, "../../ui-app"), dir);
    const gz = (file: string) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).length;
    const total = gz("app.js") + gz("app.css");
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThanOrEqual(200 * 1024);
  });

  it("loads nothing from another origin (works offline: no CDN, no web fonts)", async () => {
    await buildWebApp(join(import.meta.dirname, "../../ui-app"), dir);
    for (const file of ["index.html", "app.js", "app.css"]) {
      // The SVG namespace is a name (createElementNS), never fetched: the only URL allowed.
      const text = readFileSync(join(dir, file), "utf8").replaceAll("http://www.w3.org/2000/svg", "");
      expect(text, file).not.toMatch(/https?:\/\//);
      expect(text, file).not.toMatch(/@import|url\(/);
    }
  });
});
