/**
 * The CLI on a shared Postgres database (issue 18): `run` journals into it when given a
 * postgres:// URL (TINYAGENTS_DATABASE_URL or --db), and `runs` / `show` / `ui` — from any machine
 * pointed at the same database — read what a worker wrote there; no SQLite file is created.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactDatabaseUrl } from "../src/core/cli-postgres-store.js";
import { useCli } from "./support/cli.js";

const { cli, home, withUi } = useCli("tinyagents-cli-pg-");
let server: TestPostgres;

describe("redactDatabaseUrl", () => {
  it("hides the password, keeps the rest", () => {
    expect(redactDatabaseUrl("postgres://app:s3cret@db.internal:5432/agents")).toBe(
      "postgres://app:***@db.internal:5432/agents",
    );
    expect(redactDatabaseUrl("postgres://postgres@127.0.0.1:5/x")).toBe("postgres://postgres@127.0.0.1:5/x");
  });
});

describe.skipIf(skipPostgres())("the CLI on Postgres (skipped only by TINYAGENTS_SKIP_POSTGRES=1)", () => {
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("run writes to the database; runs, show and ui read it back through --db; the status is shared", async () => {
    const url = server.url;
    const run = await cli(["run", "what time is it in Tokyo?", "--tools", "time"], {
      env: {
        TINYAGENTS_DATABASE_URL: url,
        TINYAGENTS_DATABASE_SCHEMA: "cli_shared",
      },
    });
    expect(run.code).toBe(0);
    const runId = /run id: (run-\S+)/.exec(run.stdout)?.[1] as string;
    expect(runId).toBeDefined();
    expect(existsSync(join(home(), "tinyagents.db"))).toBe(false); // nothing went to SQLite

    const runs = await cli(["runs", "--db", url], { env: { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" } });
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain(runId);
    const show = await cli(["show", runId, "--db", url], {
      env: { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" },
    });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`run ${runId}`);
    expect(show.stdout).toContain("current_time");

    // Any other process on the same database sees the run's final status and journal.
    const store = await PostgresStore.open({ url, schema: "cli_shared" });
    try {
      expect((await store.statusStore.get(runId))?.status).toBe("completed");
      expect(await store.appendLog.length(`journal-${runId}`)).toBeGreaterThan(0);
    } finally {
      await store.close();
    }

    // The inspector serves the runs of that database.
    let served: string[] = [];
    const ui = await withUi(
      ["--db", url],
      async (inspector) => {
        // The printed URL carries the inspector's token (every bind needs it, loopback included).
        const auth = { headers: { authorization: `Bearer ${new URL(inspector).searchParams.get("token")}` } };
        const runs = (await (await fetch(new URL("/api/runs", inspector), auth)).json()) as {
          runId: string;
        }[];
        served = runs.map((r) => r.runId);
      },
      { env: { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" } },
    );
    expect(ui.code).toBe(0);
    expect(served).toEqual([runId]);
    expect(ui.stdout).toContain(`reading ${url}`);

    // Another schema is another deployment: nothing there.
    const empty = await cli(["runs", "--db", url], { env: { TINYAGENTS_DATABASE_SCHEMA: "cli_other" } });
    expect(empty.stdout).toContain("no runs recorded yet in postgres://");
  });

  it("an unreachable database is a config error (exit 3) that never prints the password", async () => {
    const result = await cli(["runs"], {
      env: {
        TINYAGENTS_DATABASE_URL: "postgres://app:s3cret@127.0.0.1:1/agents",
      },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("postgres://app:***@127.0.0.1:1/agents");
    expect(result.stderr).not.toContain("s3cret");
  });
});
