/**
 * A DBOS client given a system database URL with a password never prints it (issue 35):
 * `JSON.stringify`, `util.inspect` and `String` of the client are credential-free. (A call
 * against an unreachable database is not checked here: the DBOS SDK retries the connection for
 * more than a minute.) Integration tier: the DBOS SDK's client (127.0.0.1:9, nothing listens;
 * the client connects lazily). Budget: ~2 s.
 */
import { createDbosClient } from "@tinyagents/dbos";
import { describe, it } from "vitest";
import { expectNoSecrets, printed } from "../../harness/test/support/printed-secrets.js";

const PG_SECRET = "dbos-password-8c7b6a5f4e";

describe("a DBOS client with a password in its system database URL", () => {
  it("JSON.stringify, util.inspect and String of the client are credential-free", async () => {
    const client = await createDbosClient({
      systemDatabaseUrl: `postgres://postgres:${PG_SECRET}@127.0.0.1:9/dbos_sys`,
    });
    try {
      expectNoSecrets(printed(client), [PG_SECRET]);
    } finally {
      await client.close();
    }
  });
});
