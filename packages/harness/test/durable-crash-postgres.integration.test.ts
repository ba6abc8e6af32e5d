/**
 * Issue 32 acceptance on Postgres (integration tier): the same crash suite as on SQLite
 * (durable-crash-suite.ts: the same 43 kill points, the 2- and 8-recoverer races and the
 * live-owner case), every process on one throwaway Postgres server (each worker its own pool).
 *
 * Budget: server start ~2-4 s, then the matrix 3 scenarios at a time: measured 49 s on 2 cores
 * at load ~10 (both crash files 81 s; vitest runs integration files one after the other on 2
 * cores); 26 s at load ~1 before the session-child case; hard cap 120 s per case.
 */
import { skipPostgres } from "@tinyagents/postgres/testing";
import { describe } from "vitest";
import { crashSuite, openPostgresBackend, RANDOM_KILLS } from "./durable-crash-suite.js";

describe.skipIf(skipPostgres())("durable runs across SIGKILL and other processes (Postgres)", () => {
  crashSuite(openPostgresBackend, { randomKills: RANDOM_KILLS, racers: [2, 8], concurrency: 3 });
});
