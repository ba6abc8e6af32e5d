import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** `@tinyagents/harness/testkit` -> packages/harness/src/testkit/index.ts, for every entry point. */
function entryPointAliases(): { find: RegExp; replacement: string }[] {
  const list = JSON.parse(readFileSync(src("./entry-points.json"), "utf8")) as {
    packages: Record<string, { dir: string; subpaths: string[] }>;
  };
  return Object.entries(list.packages).flatMap(([name, { dir, subpaths }]) =>
    [".", ...subpaths].map((subpath) => ({
      find: new RegExp(`^${(subpath === "." ? name : `${name}/${subpath}`).replace(/[/.]/g, "\\$&")}$`),
      replacement: src(`./${dir}/src/${subpath === "." ? "" : `${subpath}/`}index.ts`),
    })),
  );
}

/** Every test file, both tiers. */
const TEST_FILES = [
  "packages/*/src/**/*.test.ts",
  "packages/*/test/**/*.test.ts",
  "examples/**/*.test.ts",
  "test/**/*.test.ts",
];
/** The integration tier: the naming every new process/server/engine/compiler test follows. */
const INTEGRATION_FILES = "**/*.integration.test.ts";
/**
 * Engine suites that SIGKILL worker fleets (DBOS, Restate): the integration tier's second group,
 * run after the rest, one file at a time (CPU-heavy; the Restate chaos lag assert has little
 * margin beside another file's child processes on 2 cores).
 */
const ENGINE_KILL_FILES = [
  "packages/dbos/test/conformance.integration.test.ts",
  "packages/dbos/test/dbos-chaos.integration.test.ts",
  "packages/restate/test/restate-chaos.integration.test.ts",
];

export default defineConfig({
  resolve: {
    // Each public entry point to its source (entry-points.json, the one list of them).
    alias: entryPointAliases(),
  },
  test: {
    // Fixed fast-check seed; then: each test file must leave no handle, timer or socket behind.
    setupFiles: ["./test/setup/fast-check.ts", "./test/setup/resource-hygiene.ts"],
    // Two tiers (docs/testing.md): `npm run test:unit` answers in about a minute and is what to run
    // while changing code; `npm run test:integration` holds everything that spawns a process, starts
    // a server, engine, Postgres or Chromium, runs `tsc` or packs tarballs. `npm test` runs both.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: TEST_FILES,
          exclude: [...configDefaults.exclude, INTEGRATION_FILES],
          // Virtual time, in-memory stores, no process or server: a unit test that needs more than
          // this is waiting on something real and belongs in the integration tier.
          testTimeout: 5_000,
          hookTimeout: 10_000,
          // One worker per core. Vitest's default is one fewer, which on a 2-core machine runs the
          // whole tier in ONE worker (108 s wall for 101 s of CPU): unit files are CPU-bound and
          // isolated, so both cores can take one.
          maxWorkers: availableParallelism(),
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: [INTEGRATION_FILES],
          exclude: [...configDefaults.exclude, ...ENGINE_KILL_FILES],
          sequence: { groupOrder: 0 },
          // Child processes, servers and compilers share two cores with each other: generous limits,
          // each crash suite states its own budget in its header.
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Two files at a time (four at most on bigger machines). An integration file mostly
          // waits: on its child processes, servers, Postgres or Chromium, which run beside it.
          // Vitest's default on 2 cores is ONE worker, which ran the tier's ~100 files one after
          // the other, a core idle during every wait and every file's import.
          maxWorkers: Math.min(Math.max(availableParallelism(), 2), 4),
          // The type tests (`*.test-d.ts`) are not run here: they are type errors or nothing, and
          // `npm run typecheck` (the first step of `npm test`) compiles them with everything else.
          // Vitest's typecheck ran that same `tsc` a second time.
        },
      },
      {
        extends: true,
        test: {
          name: "integration-engines",
          include: ENGINE_KILL_FILES,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // After the "integration" group, alone: see ENGINE_KILL_FILES.
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
    ],
  },
});
