import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPostgresBinaries, PostgresNotInstalledError } from "./postgres-binaries.js";
import { skipPostgres } from "./skip-postgres.js";
import { startTestPostgres, type TestPostgres } from "./start-test-postgres.js";

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("findPostgresBinaries", () => {
  it("fails with a typed error that says how to install Postgres when none is found", () => {
    const empty = mkdtempSync(join(tmpdir(), "no-pg-"));
    try {
      let caught: unknown;
      try {
        findPostgresBinaries({ root: join(empty, "nope"), path: empty });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PostgresNotInstalledError);
      expect(TinyAgentsError.isInstance(caught, "storage")).toBe(true);
      expect((caught as Error).message).toContain("apt-get install -y postgresql");
      expect((caught as Error).message).toContain("TINYAGENTS_SKIP_POSTGRES=1");
      expect(() => findPostgresBinaries({ binDir: empty })).toThrow(PostgresNotInstalledError);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe.skipIf(skipPostgres())("startTestPostgres (skipped only by TINYAGENTS_SKIP_POSTGRES=1)", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startTestPostgres();
    console.info(`startTestPostgres: ready in ${server.startMs} ms (initdb + start) on port ${server.port}`);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("serves SQL on 127.0.0.1 only, with trust auth as user postgres and the socket in its own dir", async () => {
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "select current_user as who, current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sock",
      );
      expect(rows[0]).toEqual({ who: "postgres", listen: "127.0.0.1", sock: server.dir });
    } finally {
      await client.end();
    }
    expect(existsSync(join(server.dir, `.s.PGSQL.${server.port}`))).toBe(true);
  });

  it("a second server gets its own port and directory; stop() shuts it down and removes the directory", async () => {
    const other = await startTestPostgres();
    expect(other.port).not.toBe(server.port);
    expect(other.dir).not.toBe(server.dir);
    expect(await accepts(other.port)).toBe(true);
    await other.stop();
    await other.stop(); // idempotent
    expect(existsSync(other.dir)).toBe(false);
    expect(await accepts(other.port)).toBe(false);
  }, 60_000);
});
