/** SQLite driver selection with better-sqlite3 loaded for real in a child process (integration tier). */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("SQLite driver selection", () => {
  it("a real failed dlopen of better-sqlite3's addon (another ABI) gets the same message", {
    timeout: 60_000,
  }, () => {
    // A child process whose process.dlopen fails as Node's does for an addon built for another ABI;
    // better-sqlite3 and its `bindings` loader run for real.
    const index = fileURLToPath(new URL("./index.ts", import.meta.url));
    const script = [
      "process.dlopen = () => { throw Object.assign(new Error(",
      "  'The module better_sqlite3.node was compiled against a different Node.js version using NODE_MODULE_VERSION 999.'),",
      "  { code: 'ERR_DLOPEN_FAILED' }); };",
      `const { SqliteStore } = await import(${JSON.stringify(index)});`,
      "try { SqliteStore.open(':memory:', { driver: 'better-sqlite3' }); console.log('opened'); }",
      "catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }",
    ].join("\n");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 50_000,
    });
    const out = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}") as {
      code?: string;
      message?: string;
    };
    expect(out.code, child.stderr).toBe("storage");
    expect(out.message).toContain("NODE_MODULE_VERSION 999");
    expect(out.message).toContain("npm rebuild better-sqlite3");
  });
});
