import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { availableSqliteDrivers } from "./sqlite-drivers.fixture.js";
import { SqliteStore } from "./sqlite-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every file the store left in `dir` (database, WAL, shared memory), as text. */
function onDisk(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString("latin1"))
    .join("\n");
}

describe.each(availableSqliteDrivers())("SqliteStore on %s: deleted data leaves the file", (driver) => {
  it("a deleted value (a durable run's checkpoint, say) is not left in free pages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-secure-delete-"));
    dirs.push(dir);
    const marker = "transcript-with-Bearer-sk-marker-7f3a9c";
    const store = SqliteStore.open(join(dir, "db.sqlite"), { driver });
    // Small (in the page) and large (overflow pages) values, as checkpoints are.
    await store.keyValue.put("checkpoints", "small", { text: marker });
    await store.keyValue.put("checkpoints", "large", { text: `${marker} ${"x".repeat(20_000)}` });
    await store.keyValue.put("other", "kept", { text: "kept" });
    store.flush();
    expect(onDisk(dir)).toContain(marker);
    await store.keyValue.delete("checkpoints", "small");
    await store.keyValue.delete("checkpoints", "large");
    store.close(); // checkpoints the WAL into the database file
    const text = onDisk(dir);
    expect(text).toContain("kept");
    expect(text).not.toContain(marker);
  });
});
