/** Temp directories for tests, removed by the test file's own cleanup list. */
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A cleanup list a test file drains in `afterEach` (last in, first out). */
export type Cleanup = (() => unknown)[];

/** A fresh directory under the OS temp directory, named `prefix...`, removed through `cleanup`. */
export async function tempDir(cleanup: Cleanup, prefix = "tinyagents-test-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** {@link tempDir}, synchronously (for setup that cannot await). */
export function tempDirSync(cleanup: Cleanup, prefix = "tinyagents-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
