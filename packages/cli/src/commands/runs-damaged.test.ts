/** `tinyagents runs` and `show` over damaged records (issue 37 item 10): skip them, name the file. */
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";

const { cli, home } = useCli("tinyagents-cli-damaged-");

describe("damaged records in the CLI store", () => {
  it("runs lists the healthy runs and names the file of the damaged one; show skips a damaged journal row", async () => {
    const first = await cli(["run", "hello"]);
    const second = await cli(["run", "what is 2 + 3?"]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const [good, bad] = [first, second].map((r) => /run id: (run-\S+)/.exec(r.stdout)?.[1] as string);
    const file = join(home(), "tinyagents.db");

    // Damage rows behind the store's back (better-sqlite3 is the CLI's own dependency).
    type Raw = { prepare(sql: string): { run(...args: unknown[]): unknown }; close(): void };
    const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Raw;
    const raw = new Database(file);
    raw.prepare("UPDATE run_status SET record = '{\"runId\": ' WHERE run_id = ?").run(bad);
    raw.prepare("UPDATE log SET value = 'null' WHERE stream = ? AND offset = 1").run(`journal-${good}`);
    raw.close();

    const runs = await cli(["runs"]);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain(good);
    expect(runs.stderr).toContain(`warning: ${file}: record "${bad}" is not valid JSON`);

    const show = await cli(["show", good as string]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`run ${good}`);
    expect(show.stderr).toContain(
      `warning: ${file}: record "journal-${good}" at offset 1 is not a journal observation`,
    );
  });
});
