import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  AppendLogEventJournal,
  type CheckpointStore,
  type HarnessEventJournal,
  type HarnessStatusStore,
  type KeyValueStore,
  StoreChatHistory,
} from "@tinyagents/harness";
import type { StoreWarning } from "@tinyagents/harness/store";
import type { JsonObject } from "@tinyagents/inference";
import { CliError } from "./cli-error.js";
import {
  type CliBackend,
  isPostgresUrl,
  openPostgresBackend,
  redactDatabaseUrl,
} from "./cli-postgres-store.js";
import { EXIT } from "./exit-codes.js";

/**
 * What the CLI remembers about a run beside its journal and status (for `tinyagents runs`).
 * Plain JSON data, but not declared `extends JsonObject`: an optional field would not fit that
 * index signature for consumers compiling without `exactOptionalPropertyTypes` (TS2411).
 */
export interface RunRecord {
  runId: string;
  command: string;
  model: string;
  prompt: string;
  startedAt: number;
  threadId: string | null;
  /** `false` when the run journaled no content (`--no-capture-content`); absent: captured. */
  captureContent?: boolean;
  /** How the agent was built (`run`: its flags, see `CliAgentFlags`); kept with content capture. */
  agent?: JsonObject;
}

/**
 * The CLI's view of its store (a SQLite file, or a Postgres database shared with workers and
 * other CLIs): chat threads, the journal, run statuses and run records.
 */
export interface CliStore {
  /** Where the store is, for messages: the file, or the database URL without its password. */
  readonly file: string;
  readonly history: StoreChatHistory;
  readonly journal: HarnessEventJournal;
  /** The status store (it can reap runs whose process died). */
  readonly statusStore: HarnessStatusStore & Required<Pick<HarnessStatusStore, "reapStale">>;
  readonly keyValue: KeyValueStore;
  /** The durable run records of CLI turns (a turn's record and first status: one transaction). */
  readonly checkpoints: CheckpointStore;
  saveRun(record: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Commit what is waiting and close (await it: a Postgres store flushes its group commit). */
  close(): void | Promise<void>;
}

const RUNS = "cli-runs";

/**
 * Open (creating if needed) the store at `location`: a `postgres://` URL opens that database
 * (through the optional `@tinyagents/postgres`), anything else is a SQLite file. The backends
 * are loaded only here, so `--help` and `probe` work without them. `onWarning` hears of damaged
 * records that reads skip (each names the file and the record); default: `process.emitWarning`.
 */
export async function openCliStore(
  location: string,
  env: Readonly<Record<string, string | undefined>> = {},
  onWarning?: (warning: StoreWarning) => void,
): Promise<CliStore> {
  if (isPostgresUrl(location)) {
    const backend = await openPostgresBackend(location, env.TINYAGENTS_DATABASE_SCHEMA);
    return cliStoreOver(redactDatabaseUrl(location), backend, onWarning);
  }
  return cliStoreOver(location, await openSqliteBackend(location, onWarning), onWarning);
}

async function openSqliteBackend(
  file: string,
  onWarning?: (warning: StoreWarning) => void,
): Promise<CliBackend> {
  let sqlite: typeof import("@tinyagents/harness/sqlite");
  try {
    sqlite = await import("@tinyagents/harness/sqlite");
  } catch (error) {
    throw new CliError(
      `cannot load the SQLite backend: ${(error as Error).message}. Reinstall with \`npm install\``,
      EXIT.config,
    );
  }
  let store: ReturnType<typeof sqlite.SqliteStore.open>;
  try {
    mkdirSync(dirname(file), { recursive: true });
    store = sqlite.SqliteStore.open(file, onWarning === undefined ? {} : { onWarning });
  } catch (error) {
    // A driver that cannot load (better-sqlite3 built for another Node, not installed) is not
    // about the file: its message already names the cause and the fix.
    const reason = (error as { details?: { reason?: unknown } }).details?.reason;
    const driverProblem = reason === "native_load_failed" || reason === "driver_unavailable";
    throw new CliError(
      driverProblem
        ? `cannot open the tinyagents store: ${(error as Error).message}`
        : `cannot open the tinyagents store at ${file}: ${(error as Error).message}. Choose another place with --db FILE or TINYAGENTS_HOME=DIR`,
      EXIT.config,
    );
  }
  return store;
}

/** The CLI's stores over a backend's key-value store, append log and status store. */
function cliStoreOver(
  file: string,
  backend: CliBackend,
  onWarning?: (warning: StoreWarning) => void,
): CliStore {
  const keyValue = backend.keyValue;
  return {
    file,
    history: new StoreChatHistory({ log: backend.appendLog, streamPrefix: "thread-" }),
    journal: new AppendLogEventJournal(backend.appendLog, {
      streamPrefix: "journal-",
      where: file,
      ...(onWarning === undefined ? {} : { onWarning }),
    }),
    statusStore: backend.statusStore,
    keyValue,
    checkpoints: backend.checkpoints,
    saveRun: (record) => keyValue.put(RUNS, record.runId, record as unknown as JsonObject),
    getRun: async (runId) => (await keyValue.get(RUNS, runId)) as RunRecord | undefined,
    close: () => backend.close(),
  };
}
