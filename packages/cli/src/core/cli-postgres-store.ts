import type { AppendLog, CheckpointStore, HarnessStatusStore, KeyValueStore } from "@tinyagents/harness";
import { CliError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";

/** What the CLI needs of a database: the same stores `SqliteStore` hands out. */
export interface CliBackend {
  keyValue: KeyValueStore;
  appendLog: AppendLog;
  statusStore: HarnessStatusStore & Required<Pick<HarnessStatusStore, "reapStale">>;
  /** Durable run records: a new run's record and first status written in one transaction. */
  checkpoints: CheckpointStore;
  close(): void | Promise<void>;
}

/** Whether `--db` / TINYAGENTS_DATABASE_URL names a Postgres database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL with its password replaced by `***`: what the CLI prints (a password never reaches output). */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/**
 * Open the Postgres database at `url` (schema `TINYAGENTS_DATABASE_SCHEMA`, default `tinyagents`)
 * through `@tinyagents/postgres`, an optional peer loaded only here. Exit code 3 (config) with
 * what to do when the package is missing or the database cannot be opened.
 */
export async function openPostgresBackend(url: string, schema: string | undefined): Promise<CliBackend> {
  let postgres: typeof import("@tinyagents/postgres");
  try {
    postgres = await import("@tinyagents/postgres");
  } catch (error) {
    throw new CliError(
      `a postgres:// store needs the @tinyagents/postgres package: npm install @tinyagents/postgres (${(error as Error).message})`,
      EXIT.config,
    );
  }
  try {
    return await postgres.PostgresStore.open({
      url,
      ...(schema === undefined || schema === "" ? {} : { schema }),
    });
  } catch (error) {
    throw new CliError(
      `cannot open the tinyagents store at ${redactDatabaseUrl(url)}: ${(error as Error).message}`,
      EXIT.config,
    );
  }
}
