// The adapters, in table order, with their table labels. The hand-written loop comes first: it is
// the floor every ratio is taken against. `tinyagents-sqlite` is ours with the SQLite journal and
// status store wired as the CLI wires them; `tinyagents-production` is W5 (that plus retry,
// budget and usage middleware); `tinyagents-postgres` is ours with the Postgres journal and status
// store wired the same way (needs the server bench/run.mjs starts: POSTGRES_ADAPTERS);
// `tinyagents-sync-tool` is the labelled sync-tool variant (W1 only). `sqlite-floor` and
// `postgres-floor` are the storage floors of issue 40 (W1 only): the hand-written loop writing,
// with the raw driver, the minimal records of a crash-proof run. Adapters load only in child
// processes.
export const LABELS = {
  "hand-written": "hand-written loop (floor)",
  tinyagents: "tinyagents",
  "tinyagents-sync-tool": "tinyagents, sync tool (not comparable: others use an async tool)",
  "sqlite-floor": "SQLite floor: hand-written loop + raw better-sqlite3 writes",
  "tinyagents-sqlite": "tinyagents + SQLite journal & status (CLI wiring)",
  "tinyagents-production": "tinyagents + retry, budget, usage, SQLite (W5)",
  "postgres-floor": "Postgres floor: hand-written loop + raw pg writes",
  "tinyagents-postgres": "tinyagents + Postgres journal & status (CLI-like wiring)",
  "ai-sdk": "Vercel AI SDK",
  langchain: "LangChain.js",
  "openai-agents": "OpenAI Agents JS",
};

export const ADAPTERS = Object.keys(LABELS);

export const FLOOR = "hand-written";

/** Adapters measured in W1 only (a variant of another row, not a framework). */
export const W1_ONLY = new Set(["tinyagents-sync-tool", "sqlite-floor", "postgres-floor"]);

/** Adapters that need the throwaway Postgres server bench/run.mjs starts. */
export const POSTGRES_ADAPTERS = new Set(["tinyagents-postgres", "postgres-floor"]);

/**
 * Issue 40: each journaled adapter and the raw-driver floor it is measured against (W1: µs per
 * step of the journaled row / the floor's of the same run).
 */
export const STORAGE_FLOORS = {
  "tinyagents-sqlite": "sqlite-floor",
  "tinyagents-production": "sqlite-floor",
  "tinyagents-postgres": "postgres-floor",
};

/**
 * W4: the package each framework's users import, alone and with zod (which every framework's
 * documented tools use), by table row.
 */
export const IMPORTS = [
  ["@tinyagents/harness"],
  ["@tinyagents/harness", "zod"],
  ["ai"],
  ["ai", "zod"],
  ["langchain"],
  ["langchain", "zod"],
  ["@openai/agents"],
  ["@openai/agents", "zod"],
];

export async function loadAdapter(name) {
  if (!ADAPTERS.includes(name)) throw new Error(`unknown adapter ${name}; known: ${ADAPTERS.join(", ")}`);
  return import(`./${name}.mjs`);
}
