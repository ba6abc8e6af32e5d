import { mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type JsonValue, TinyAgentsError, validationError } from "@tinyagents/inference";
import {
  expiryFor,
  type KeyValueOp,
  type KeyValueStore,
  type PutOptions,
  sameJson,
  validateBatch,
} from "./key-value-store.js";
import { validateStoreName } from "./store-names.js";

/** Options of a {@link FileKeyValueStore}. */
export interface FileKeyValueStoreOptions {
  /** Clock for TTLs (default `Date.now`). */
  now?: () => number;
  /** `fdatasync` each file before renaming it into place (survives power loss; slower). Default false. */
  fsync?: boolean;
}

/** What a value file holds. */
interface StoredValue {
  value: JsonValue;
  expiresAt?: number;
}

let tempCounter = 0;

/**
 * A KeyValueStore of JSON files for local development: `<directory>/<namespace>/<key>.json`.
 *
 * - Writes are atomic per key: the value goes to a hidden temp file in the same directory, which
 *   is then renamed over the target, so a reader (or a crash) sees the old value or the new one,
 *   never half of one. With `fsync: true` the data is also flushed before the rename.
 * - Namespaces and keys become file names, so unsafe names (path separators, `..`, NUL, a
 *   leading dot, over 200 bytes) are rejected with a `validation` error; encode arbitrary ids
 *   with `encodeStoreName`.
 * - `batch` validates every operation first, then applies them in order; each is atomic on its
 *   own but the batch is not all-or-nothing (use the SQLite store for that).
 * - `list` reads each file to honour TTLs: fine for development-sized namespaces.
 * I/O failures surface as `storage` errors naming the file.
 */
export class FileKeyValueStore implements KeyValueStore {
  readonly directory: string;
  private readonly now: () => number;
  private readonly fsync: boolean;

  constructor(directory: string, options: FileKeyValueStoreOptions = {}) {
    if (typeof directory !== "string" || directory === "") {
      throw validationError("FileKeyValueStore needs a directory path", { field: "directory" });
    }
    this.directory = directory;
    this.now = options.now ?? Date.now;
    this.fsync = options.fsync ?? false;
  }

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    const stored = await this.read(this.file(namespace, key));
    if (stored === undefined) return undefined;
    if (stored.expiresAt !== undefined && stored.expiresAt <= this.now()) return undefined;
    return stored.value;
  }

  async put(namespace: string, key: string, value: JsonValue, options: PutOptions = {}): Promise<void> {
    const file = this.file(namespace, key);
    await this.write(file, this.encode(key, value, options.ttlMs));
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    const file = this.file(namespace, key);
    const live = (await this.get(namespace, key)) !== undefined;
    try {
      await unlink(file);
    } catch (error) {
      if (!isNotFound(error)) throw storageError("delete", file, error);
    }
    return live;
  }

  /**
   * Atomic take: the file is first renamed to a name private to this call (rename is atomic, so
   * of several concurrent takers in any process exactly one succeeds), then read and removed.
   */
  async take(namespace: string, key: string): Promise<JsonValue | undefined> {
    const file = this.file(namespace, key);
    const claimed = join(dirname(file), `.${process.pid}-${++tempCounter}.take`);
    try {
      await rename(file, claimed);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw storageError("take", file, error);
    }
    try {
      const stored = await this.read(claimed);
      if (stored === undefined) return undefined;
      if (stored.expiresAt !== undefined && stored.expiresAt <= this.now()) return undefined;
      return stored.value;
    } finally {
      await unlink(claimed).catch(() => {});
    }
  }

  /**
   * Compare-and-set (see `KeyValueStore.compareAndSet`) under a lock file `.<key>.lock` taken
   * with an exclusive create, so it is atomic against every other `compareAndSet` of the key in
   * any process (plain `put`/`delete` do not take the lock). A lock left by a process killed
   * while holding it is broken after `STALE_LOCK_MS` (5 s).
   */
  async compareAndSet(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): Promise<boolean> {
    const file = this.file(namespace, key);
    const body = next === undefined ? undefined : this.encode(key, next, undefined);
    return this.locked(file, async () => {
      const stored = await this.read(file);
      const live =
        stored !== undefined && (stored.expiresAt === undefined || stored.expiresAt > this.now())
          ? JSON.stringify(stored.value)
          : undefined;
      if (!sameJson(live, expected)) return false;
      if (body !== undefined) await this.write(file, body);
      else {
        try {
          await unlink(file);
        } catch (error) {
          if (!isNotFound(error)) throw storageError("delete", file, error);
        }
      }
      return true;
    });
  }

  async list(namespace: string): Promise<string[]> {
    validateStoreName(namespace, "namespace");
    const dir = join(this.directory, namespace);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw storageError("list", dir, error);
    }
    const keys = names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).map((n) => n.slice(0, -5));
    const live = await Promise.all(
      keys.map(async (k) => ((await this.get(namespace, k)) === undefined ? null : k)),
    );
    return live.filter((k): k is string => k !== null).sort();
  }

  async batch(ops: readonly KeyValueOp[]): Promise<void> {
    validateBatch(ops);
    const prepared = ops.map((op) => ({
      op,
      file: this.file(op.namespace, op.key),
      body: op.op === "put" ? this.encode(op.key, op.value, op.ttlMs) : undefined,
    }));
    for (const { op, file, body } of prepared) {
      if (body !== undefined) await this.write(file, body);
      else await this.delete(op.namespace, op.key);
    }
  }

  /** Run `work` holding the lock file of `file` (exclusive create; waits, breaks stale locks). */
  private async locked<T>(file: string, work: () => Promise<T>): Promise<T> {
    const lock = join(dirname(file), `.${basename(file)}.lock`);
    await mkdir(dirname(file), { recursive: true }).catch((error: unknown) => {
      throw storageError("create the directory of", file, error);
    });
    const giveUpAt = Date.now() + LOCK_WAIT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 20)) {
      try {
        const handle = await open(lock, "wx");
        await handle.close();
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException | undefined)?.code !== "EEXIST")
          throw storageError("lock", lock, error);
      }
      await breakStaleLock(lock);
      if (Date.now() > giveUpAt) {
        throw new TinyAgentsError(
          "storage",
          `could not lock ${file} within ${LOCK_WAIT_MS} ms: another process holds ${lock}; delete it if no process is writing`,
          { details: { file, lock } },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    try {
      return await work();
    } finally {
      await unlink(lock).catch(() => {});
    }
  }

  private file(namespace: string, key: string): string {
    validateStoreName(namespace, "namespace");
    validateStoreName(key, "key");
    return join(this.directory, namespace, `${key}.json`);
  }

  private encode(key: string, value: JsonValue, ttlMs: number | undefined): string {
    const expiresAt = expiryFor(ttlMs, this.now());
    const stored: StoredValue = expiresAt === undefined ? { value } : { value, expiresAt };
    if (value === undefined || typeof value === "function" || typeof value === "symbol") {
      throw validationError(`value for key "${key}" is not JSON data`, { field: "value" });
    }
    return JSON.stringify(stored);
  }

  private async read(file: string): Promise<StoredValue | undefined> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw storageError("read", file, error);
    }
    try {
      return JSON.parse(text) as StoredValue;
    } catch (error) {
      throw new TinyAgentsError(
        "storage",
        `value file ${file} is not valid JSON (written by something else?); restore or delete it`,
        { cause: error, details: { file } },
      );
    }
  }

  private async write(file: string, body: string): Promise<void> {
    const dir = dirname(file);
    const temp = join(dir, `.${process.pid}-${++tempCounter}.tmp`);
    try {
      await mkdir(dir, { recursive: true });
      const handle = await open(temp, "w");
      try {
        await handle.writeFile(body, "utf8");
        if (this.fsync) await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw storageError("write", file, error);
    }
  }
}

/** A lock file older than this belongs to a process that died holding it. */
const STALE_LOCK_MS = 5_000;
/** How long `compareAndSet` waits for a lock before a `storage` error. */
const LOCK_WAIT_MS = 15_000;

/** Remove `lock` when it is older than `STALE_LOCK_MS` (5 s) (renamed first: one breaker wins). */
async function breakStaleLock(lock: string): Promise<void> {
  try {
    const info = await stat(lock);
    if (Date.now() - info.mtimeMs < STALE_LOCK_MS) return;
    const broken = `${lock}.${process.pid}-${++tempCounter}.broken`;
    await rename(lock, broken);
    await unlink(broken);
  } catch {
    // Gone already, or another process broke it first.
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}

function storageError(action: string, file: string, error: unknown): TinyAgentsError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new TinyAgentsError(
    "storage",
    `could not ${action} ${file}${code ? ` (${code})` : ""}; check the path exists and is writable`,
    { cause: error, details: { file, action, ...(code ? { errno: code } : {}) } },
  );
}
