import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/**
 * The version of this package, read from its package.json (so it cannot drift from what npm
 * installed). Searched upwards from this module: the bundler may place it in `dist/` or in
 * `dist/chunks/`, and tests run it from `src/`.
 */
export function cliVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "tinyagents" && typeof manifest.version === "string") {
        cached = manifest.version;
        return cached;
      }
    } catch {
      // no package.json at this level: look further up
    }
  }
  return "unknown";
}
