// What a journaled run writes, counted at the driver (better-sqlite3 / pg), so tinyagents and the
// raw-driver floors are counted the same way: journal records and their bytes, status writes,
// commits, and (Postgres) round trips. Used after the timed samples, on one extra run, never while
// timing. Statements are wrapped when they are prepared, so install before the store opens.
import { createRequire } from "node:module";

const counts = { records: 0, bytes: 0, statusWrites: 0, commits: 0, roundTrips: 0 };
let counting = false;
let installed;

function countLogRows(values) {
  counts.records += values.length;
  for (const value of values) counts.bytes += Buffer.byteLength(String(value));
}

/** Wrap better-sqlite3 statements (the store's and the floor's alike). */
function instrumentSqlite() {
  const Database = createRequire(import.meta.resolve("@tinyagents/harness/sqlite"))("better-sqlite3");
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql) {
    const statement = prepare.call(this, sql);
    let count;
    if (/^INSERT INTO log\b/.test(sql))
      count = (params) => countLogRows(params.filter((_, i) => i % 3 === 2));
    else if (/^(INSERT INTO|UPDATE) run_status\b/.test(sql)) count = () => counts.statusWrites++;
    else if (sql === "COMMIT") count = () => counts.commits++;
    if (count === undefined) return statement;
    const run = statement.run.bind(statement);
    statement.run = (...params) => {
      if (counting) count(params);
      return run(...params);
    };
    return statement;
  };
}

/** Wrap pg's Client#query: every call is one round trip (pg does not pipeline). */
async function instrumentPostgres() {
  const pg = (await import("pg")).default;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    if (counting) {
      const text = typeof config === "string" ? config : config.text;
      const params = Array.isArray(values) ? values : config?.values;
      counts.roundTrips++;
      if (text === "BEGIN") this.benchInTransaction = true;
      else if (text === "COMMIT" || text === "ROLLBACK") {
        this.benchInTransaction = false;
        if (text === "COMMIT") counts.commits++;
      } else if (/^WITH (want|created|advanced) AS /.test(text) && text.includes(" appended AS (")) {
        // @tinyagents/postgres's one-statement group commit, its lines joined by line feeds: the
        // array form has them in $6 and the status run ids in $7; the one-run forms (a new or a
        // continued stream) have them in $3 and the status run id in $5 (null: no status).
        const many = text.startsWith("WITH want AS ");
        const lines = many ? params[5] : params[2];
        if (typeof lines === "string" && lines !== "") countLogRows(lines.split("\n"));
        counts.statusWrites += many ? params[6].length : params[4] === null ? 0 : 1;
        if (this.benchInTransaction !== true) counts.commits++;
      } else {
        const writes = /\b(INSERT|UPDATE)\b/.test(text);
        if (/INSERT INTO "[a-z0-9_]+"\."log" /.test(text) && Array.isArray(params?.[2]))
          countLogRows(params[2]);
        if (/(INSERT INTO|UPDATE) "[a-z0-9_]+"\."run_status"/.test(text)) counts.statusWrites++;
        if (writes && this.benchInTransaction !== true) counts.commits++; // autocommit
      }
    }
    return query.call(this, config, values, callback);
  };
}

/** Install the counters for `storage` ("sqlite" or "postgres"); idempotent. */
export async function instrumentWrites(storage) {
  if (installed === storage) return;
  if (installed !== undefined) throw new Error(`write counters already installed for ${installed}`);
  installed = storage;
  if (storage === "sqlite") instrumentSqlite();
  else if (storage === "postgres") await instrumentPostgres();
  else throw new Error(`unknown storage ${storage}`);
}

/**
 * Count what `runOnce()` writes until its storage is flushed (`settle()`), per step of `steps`.
 * Install first (`instrumentWrites`), then open the store.
 */
export async function countWrites(steps, runOnce, settle) {
  for (const key of Object.keys(counts)) counts[key] = 0;
  counting = true;
  try {
    await runOnce();
    await settle();
  } finally {
    counting = false;
  }
  const perStep = (n) => n / steps;
  return {
    recordsPerStep: perStep(counts.records),
    bytesPerStep: perStep(counts.bytes),
    statusWritesPerStep: perStep(counts.statusWrites),
    commitsPerStep: perStep(counts.commits),
    ...(installed === "postgres" ? { roundTripsPerStep: perStep(counts.roundTrips) } : {}),
  };
}
