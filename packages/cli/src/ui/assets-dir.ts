import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** This module's directory. */
function here(): string {
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * Where the built web app is: `dist/inspector` of the `tinyagents` package, found upwards from this
 * module (the bundler may place it in `dist/`, `dist/ui/`, or `dist/chunks/`; tests
 * run it from `src/`).
 */
export function uiAssetsDir(): string {
  let dir = here();
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
      if (manifest.name === "tinyagents") return join(dir, "dist", "inspector");
    } catch {
      // no package.json at this level: look further up
    }
    if (existsSync(join(dir, "inspector", "app.js"))) return join(dir, "inspector");
  }
  return join(here(), "inspector");
}
