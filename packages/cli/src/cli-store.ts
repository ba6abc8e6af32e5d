import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  AppendLogEventJournal,
  type HarnessEventJournal,
  type HarnessStatusStore,
  type KeyValueStore,
  StoreChatHistory,
} from "@tinyagents/harness";
import type { JsonObject } from "@tinyagents/inference";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";

/** What the CLI remembers about a run beside its journal and status (for `tinyagents runs`). */
export interface RunRecord extends JsonObject {
  runId: string;
  command: string;
  model: string;
  prompt: string;
  startedAt: number;
  threadId: string | null;
  /** `false` when the run journaled no content (`--no-capture-content`); absent: captured. */
  captureContent?: boolean;
}

/** The CLI's view of the SQLite store: chat threads, the journal, run statuses and run records. */
export interface CliStore {
  readonly file: string;
  readonly history: StoreChatHistory;
  readonly journal: HarnessEventJournal;
  /** The SQLite status store (it can reap runs whose process died). */
  readonly statusStore: HarnessStatusStore & Required<Pick<HarnessStatusStore, "reapStale">>;
  readonly keyValue: KeyValueStore;
  saveRun(record: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  close(): void;
}

const RUNS = "cli-runs";

/**
 * Open (creating if needed) the SQLite store at `file`. The SQLite backend is loaded only here,
 * so `--help` and `probe` work without the native module.
 */
export async function openCliStore(file: string): Promise<CliStore> {
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
    store = sqlite.SqliteStore.open(file);
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
  const keyValue = store.keyValue;
  return {
    file,
    history: new StoreChatHistory({ log: store.appendLog, streamPrefix: "thread-" }),
    journal: new AppendLogEventJournal(store.appendLog, { streamPrefix: "journal-" }),
    statusStore: store.statusStore,
    keyValue,
    saveRun: (record) => keyValue.put(RUNS, record.runId, record),
    getRun: async (runId) => (await keyValue.get(RUNS, runId)) as RunRecord | undefined,
    close: () => store.close(),
  };
}
