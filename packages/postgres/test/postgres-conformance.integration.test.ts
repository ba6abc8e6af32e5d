/**
 * The store conformance suites (`@tinyagents/harness/testkit`) on Postgres, against a throwaway
 * server: each case gets its own schema; `connect` opens another PostgresStore (its own pool) on
 * the same schema, as another worker would.
 */
import {
  appendLogConformance,
  claimConformance,
  keyValueStoreConformance,
  responseCacheConformance,
  statusStoreConformance,
} from "@tinyagents/harness/testkit";
import { PostgresStore, type PostgresStoreOptions } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";

let server: TestPostgres;
const stores: PostgresStore[] = [];
let schemas = 0;

/** A fresh schema; `connect` opens it again. */
async function database(options: Omit<PostgresStoreOptions, "url" | "schema"> = {}) {
  const schema = `conformance_${++schemas}`;
  const connect = async () => {
    const store = await PostgresStore.open({ url: server.url, schema, max: 4, ...options });
    stores.push(store);
    return store;
  };
  return { store: await connect(), connect };
}

const kv = {
  open: async (now: () => number) => {
    const { store, connect } = await database({ now });
    return { store: store.keyValue, connect: async () => (await connect()).keyValue };
  },
};

describe.skipIf(skipPostgres())(
  "Postgres store conformance (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
  () => {
    beforeAll(async () => {
      server = await startTestPostgres();
    }, 60_000);
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await server?.stop();
    });

    describe("PostgresKeyValueStore", () => {
      for (const c of keyValueStoreConformance(kv)) it(c.name, c.run);
    });
    describe("claims", () => {
      for (const c of claimConformance(kv)) it(c.name, c.run);
    });
    describe("PostgresAppendLog", () => {
      const subject = {
        open: async () => {
          const { store, connect } = await database();
          return { log: store.appendLog, connect: async () => (await connect()).appendLog };
        },
      };
      for (const c of appendLogConformance(subject)) it(c.name, c.run);
    });
    describe("PostgresHarnessStatusStore", () => {
      const subject = {
        open: async (o: { maxFinishedRuns: number }) => ({ store: (await database(o)).store.statusStore }),
      };
      for (const c of statusStoreConformance(subject)) it(c.name, c.run, 60_000);
    });
    describe("PostgresResponseCache", () => {
      const subject = {
        open: async (now: () => number) => ({ cache: (await database({ now })).store.responseCache }),
      };
      for (const c of responseCacheConformance(subject)) it(c.name, c.run);
    });
  },
);
