/**
 * The CLI on a shared Postgres database (issue 18): `run` journals into it when given a
 * postgres:// URL (TINYAGENTS_DATABASE_URL or --db), and `runs` / `show` / `ui` — from any machine
 * pointed at the same database — read what a worker wrote there; no SQLite file is created.
 */
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/cli-io.js";
import { redactDatabaseUrl } from "../src/cli-postgres-store.js";
import { main } from "../src/main.js";

let home: string;
let server: TestPostgres;

async function cli(argv: string[], env: Record<string, string>, signals?: EventEmitter) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: { write: (c: string) => (out.stdout += c), isTTY: false },
    stderr: { write: (c: string) => (out.stderr += c) },
    stdin: Readable.from([]),
    env: {
      TINYAGENTS_HOME: home,
      HOME: home,
      OLLAMA_HOST: "127.0.0.1:1",
      TINYAGENTS_DEMO_DELAY_MS: "0",
      ...env,
    },
    cwd: home,
    ...(signals === undefined
      ? {}
      : {
          signals: {
            on: (e: "SIGINT", l: () => void) => signals.on(e, l),
            off: (e: "SIGINT", l: () => void) => signals.off(e, l),
          },
        }),
  };
  if (signals === undefined) return { code: await main(argv, io), ...out, runs: [] as string[] };
  // `ui`: wait for its URL, list the runs through its API, then Ctrl-C it.
  const running = main(argv, io);
  let url: string | undefined;
  for (let i = 0; i < 500 && url === undefined; i++) {
    url = /inspector on (\S+)/.exec(out.stdout)?.[1];
    if (url === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  let runs: string[] = [];
  try {
    if (url === undefined) throw new Error(`no URL printed; stderr: ${out.stderr}`);
    // The printed URL carries the inspector's token (every bind needs it, loopback included).
    const auth = { headers: { authorization: `Bearer ${new URL(url).searchParams.get("token")}` } };
    runs = ((await (await fetch(new URL("/api/runs", url), auth)).json()) as { runId: string }[]).map(
      (r) => r.runId,
    );
  } finally {
    signals.emit("SIGINT");
  }
  return { code: await running, ...out, runs };
}

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
    home = await mkdtemp(join(tmpdir(), "tinyagents-cli-pg-"));
    server = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("run writes to the database; runs, show and ui read it back through --db; the status is shared", async () => {
    const url = server.url;
    const run = await cli(["run", "what time is it in Tokyo?", "--tools", "time"], {
      TINYAGENTS_DATABASE_URL: url,
      TINYAGENTS_DATABASE_SCHEMA: "cli_shared",
    });
    expect(run.code).toBe(0);
    const runId = /run id: (run-\S+)/.exec(run.stdout)?.[1] as string;
    expect(runId).toBeDefined();
    expect(existsSync(join(home, "tinyagents.db"))).toBe(false); // nothing went to SQLite

    const runs = await cli(["runs", "--db", url], { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" });
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain(runId);
    const show = await cli(["show", runId, "--db", url], { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" });
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
    const ui = await cli(
      ["ui", "--port", "0", "--db", url],
      { TINYAGENTS_DATABASE_SCHEMA: "cli_shared" },
      new EventEmitter(),
    );
    expect(ui.code).toBe(0);
    expect(ui.runs).toEqual([runId]);
    expect(ui.stdout).toContain(`reading ${url}`);

    // Another schema is another deployment: nothing there.
    const empty = await cli(["runs", "--db", url], { TINYAGENTS_DATABASE_SCHEMA: "cli_other" });
    expect(empty.stdout).toContain("no runs recorded yet in postgres://");
  });

  it("an unreachable database is a config error (exit 3) that never prints the password", async () => {
    const result = await cli(["runs"], {
      TINYAGENTS_DATABASE_URL: "postgres://app:s3cret@127.0.0.1:1/agents",
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("postgres://app:***@127.0.0.1:1/agents");
    expect(result.stderr).not.toContain("s3cret");
  });
});
