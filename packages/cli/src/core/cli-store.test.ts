import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CliError } from "./cli-error.js";
import { openCliStore } from "./cli-store.js";
import { EXIT } from "./exit-codes.js";

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("openCliStore", () => {
  it("a SQLite driver that cannot load is reported as such, not as a bad store path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-cli-store-"));
    dirs.push(dir);
    vi.stubEnv("TINYAGENTS_SQLITE_DRIVER", "bun:sqlite"); // not available under Node
    const failure = await openCliStore(join(dir, "db.sqlite")).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CliError);
    const error = failure as CliError;
    expect(error.exitCode).toBe(EXIT.config);
    expect(error.message).toContain("SQLite driver bun:sqlite is not available: this is not Bun");
    expect(error.message).not.toContain("Choose another place");
  });

  it("opens the store on this runtime's default driver", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-cli-store-"));
    dirs.push(dir);
    const store = await openCliStore(join(dir, "db.sqlite"));
    await store.saveRun({ runId: "r1" } as Parameters<typeof store.saveRun>[0]);
    expect(await store.getRun("r1")).toMatchObject({ runId: "r1" });
    store.close();
  });
});
