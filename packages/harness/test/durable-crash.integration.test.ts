/**
 * Issue 32 acceptance on SQLite (integration tier): the crash suite of durable-crash-suite.ts
 * (what it kills, where, and what it checks is described there) over one SQLite file shared by
 * every process. Its Postgres twin is durable-crash-postgres.integration.test.ts: the same
 * matrix.
 *
 * Budget: 8 exact + 1 approval + 5 sub-agent + 3 session child + 26 random kill points (43), the 2- and
 * 8-recoverer races and the live-owner case, about 2 processes per scenario, 3 scenarios at a
 * time: measured 33 s on 2 cores at load ~10 (17 s at load ~1 before the session-child case), hard
 * cap 120 s per case.
 */
import { describe } from "vitest";
import { crashSuite, openSqliteBackend, RANDOM_KILLS } from "./durable-crash-suite.js";

describe("durable runs across SIGKILL and other processes (SQLite)", () => {
  crashSuite(openSqliteBackend, { randomKills: RANDOM_KILLS, racers: [2, 8], concurrency: 3 });
});
