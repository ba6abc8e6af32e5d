import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { journalWriterConflict } from "../durability/durability-errors.js";
import type { AppendGroup, AppendLog, AppendLogEntry } from "../store/append-log.js";
import { damagedRecord } from "../store/damaged-record.js";
import { KeyedMutex } from "../store/keyed-mutex.js";
import { decodeStoreName, encodeStoreName } from "../store/store-names.js";
import { defaultStoreWarning, type StoreWarning } from "../store/store-warning.js";
import type { AgentObservation } from "./agent-observation.js";
import {
  type HarnessEventJournal,
  type JournalQuery,
  queryFilter,
  type ReplayListener,
  validateQuery,
} from "./event-journal.js";

const PAGE = 1000;
/** Streams whose last offset the journal remembers (beyond this the oldest is re-read on use). */
const MAX_TAILS = 4096;

/** `appendMany` resolves with nothing (not the log's offsets). */
function settled(): void {}

function isConflict(error: unknown): boolean {
  return TinyAgentsError.isInstance(error) && error.code === "conflict";
}

/** The run tree of every observation of `observations` when they share one (one run's batch). */
function oneRunTree(observations: readonly AgentObservation[]): string | undefined {
  const root = observations[0]?.rootRunId;
  for (let i = 1; i < observations.length; i++) {
    if ((observations[i] as AgentObservation).rootRunId !== root) return undefined;
  }
  return root;
}

/** Whether a stored entry has the shape of an observation (an object with an offset and an event). */
function isObservation(value: JsonValue): boolean {
  const event = offsetOf(value) === undefined ? undefined : (value as { event?: unknown }).event;
  return typeof event === "object" && event !== null;
}

/** The `offset` of a stored observation, if it has a numeric one. */
function offsetOf(value: JsonValue | undefined): number | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const offset = value.offset;
  return typeof offset === "number" ? offset : undefined;
}

/**
 * A HarnessEventJournal over any AppendLog (JSONL files, SQLite, in-memory).
 *
 * Stream key: the ROOT run id (`<streamPrefix><encoded root run id>`, prefix default
 * `"journal-"`). A parent run and its sub-agents share one event sink and one offset sequence,
 * so one stream per run tree keeps the tree's observations together and in emission order, and
 * replaying a tree is one sequential read. (Keying by run id would scatter a tree over many
 * streams and lose the cross-run order.)
 *
 * Observations are stored verbatim, one log entry each; durability and crash behaviour are
 * the log's (JSONL: a torn last line is skipped with a warning). Reads and replays scan the
 * tree's stream in pages and filter: O(observations of that run tree).
 *
 * A second writer of one run tree is refused with `conflict` (an append whose first offset is
 * not past the stored last one). On a log with group commit (SQLite) the check and the append
 * are one transaction, so it holds across processes; on other logs (JSONL, in-memory) the
 * check covers writers in this process and a writer that started from the journal's tail.
 */
export class AppendLogEventJournal implements HarnessEventJournal {
  private readonly log: AppendLog;
  private readonly prefix: string;
  /** Last offset this journal wrote or read per stream (logs without `appendManyAfter`); bounded. */
  private readonly tails = new Map<string, number>();
  private readonly mutex = new KeyedMutex();

  private readonly warn: (warning: StoreWarning) => void;
  private readonly where: string;

  /**
   * `onWarning` hears of stored entries that are not observations (a `null` line, a foreign
   * value), which reads skip; `where` names the log's file in those warnings.
   */
  constructor(
    log: AppendLog,
    options: { streamPrefix?: string; onWarning?: (warning: StoreWarning) => void; where?: string } = {},
  ) {
    this.log = log;
    this.prefix = options.streamPrefix ?? "journal-";
    this.warn = options.onWarning ?? defaultStoreWarning;
    this.where = options.where ?? "event journal";
  }

  async append(observation: AgentObservation): Promise<void> {
    await this.appendMany([observation]);
  }

  appendMany(observations: readonly AgentObservation[]): Promise<void> {
    // One log write for the batch when the log can group commit (SQLite: one transaction), else
    // one per run tree. A run's own journal queue hands in one tree's batch per turn: one group,
    // without the grouping map (and no async frame: this is per run and per turn in flight).
    const root = oneRunTree(observations);
    if (root !== undefined && this.log.appendGroups !== undefined) {
      try {
        return this.log
          .appendGroups([this.checkedGroup(root, observations as unknown as JsonValue[])])
          .then(settled);
      } catch (error) {
        return Promise.reject(error); // a log that throws synchronously still rejects
      }
    }
    return this.appendTrees(root, observations);
  }

  /** `appendMany` of a batch of several run trees, or on a log without group commit. */
  private async appendTrees(
    root: string | undefined,
    observations: readonly AgentObservation[],
  ): Promise<void> {
    // Group by run tree, keeping order.
    const groups = new Map<string, JsonValue[]>();
    if (root !== undefined) groups.set(root, observations as unknown as JsonValue[]);
    else
      for (const observation of observations) {
        let group = groups.get(observation.rootRunId);
        if (group === undefined) {
          group = [];
          groups.set(observation.rootRunId, group);
        }
        group.push(observation as unknown as JsonValue);
      }
    if (this.log.appendGroups === undefined) {
      for (const [rootRunId, values] of groups) await this.appendGroup(rootRunId, values);
      return;
    }
    const batch = [...groups].map(([root, values]) => this.checkedGroup(root, values));
    try {
      await this.log.appendGroups(batch);
    } catch (error) {
      // A conflict refuses the whole group commit: retry tree by tree so only the second
      // writer's records are refused, then report the conflict.
      if (batch.length === 1 || !isConflict(error)) throw error;
      let conflict: unknown;
      for (const group of batch) {
        try {
          await this.log.appendGroups([group]);
        } catch (each) {
          if (!isConflict(each)) throw each;
          conflict ??= each;
        }
      }
      if (conflict !== undefined) throw conflict;
    }
  }

  /** A group whose check refuses (`conflict`) values that do not continue the stored offsets. */
  private checkedGroup(rootRunId: string, values: JsonValue[]): AppendGroup {
    const first = offsetOf(values[0]);
    const checkOffset = (stored: number | undefined): void => {
      if (stored !== undefined && first !== undefined && first <= stored)
        throw journalWriterConflict(rootRunId, stored, first);
    };
    return {
      stream: this.stream(rootRunId),
      values,
      check: (tail) => checkOffset(offsetOf(tail)),
      checkOffset,
      valuesFrozen: true,
    };
  }

  async lastOffset(rootRunId: string): Promise<number | undefined> {
    const stream = this.stream(rootRunId);
    const length = await this.log.length(stream);
    // Dense logs answer from the last entry; a gap (a skipped corrupt line) needs a look further back.
    for (let from = Math.max(0, length - 1); length > 0; from = Math.max(0, from - PAGE)) {
      let found: AppendLogEntry | undefined;
      for (let cursor = from; ; ) {
        const page = await this.log.readFrom(stream, cursor, PAGE);
        const last = page.at(-1);
        if (last === undefined) break;
        found = last;
        cursor = last.offset + 1;
      }
      if (found !== undefined) return offsetOf(found.value);
      if (from === 0) break;
    }
    return undefined;
  }

  /**
   * One run tree's batch on a log without group commit (JSONL, in-memory), refused with
   * `conflict` when it does not continue the stored offsets. Check and append are serialized per
   * stream in this process; the stream's last offset is read once, then remembered.
   */
  private async appendGroup(rootRunId: string, values: JsonValue[]): Promise<void> {
    const stream = this.stream(rootRunId);
    const first = offsetOf(values[0]);
    const last = offsetOf(values.at(-1));
    const check = (stored: number | undefined) => {
      if (stored !== undefined && first !== undefined && first <= stored)
        throw journalWriterConflict(rootRunId, stored, first);
    };
    await this.mutex.run(stream, async () => {
      check(this.tails.has(stream) ? this.tails.get(stream) : await this.lastOffset(rootRunId));
      await this.log.appendMany(stream, values);
      this.tails.delete(stream); // re-insert: the map keeps recently written streams last
      if (last !== undefined) this.tails.set(stream, last);
      if (this.tails.size > MAX_TAILS) this.tails.delete(this.tails.keys().next().value as string);
    });
  }

  async read(rootRunId: string, query: JournalQuery = {}): Promise<AgentObservation[]> {
    validateQuery(query);
    const keep = queryFilter(query);
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const out: AgentObservation[] = [];
    await this.scan(rootRunId, (observation) => {
      if (keep(observation)) out.push(observation);
      return out.length < limit;
    });
    return out;
  }

  async replay(rootRunId: string, fromOffset: number, listener: ReplayListener): Promise<number> {
    validateQuery({ fromOffset });
    let delivered = 0;
    const pending: AgentObservation[] = [];
    await this.scan(
      rootRunId,
      (observation) => {
        if (observation.offset >= fromOffset) pending.push(observation);
        return true;
      },
      async () => {
        for (const observation of pending.splice(0)) {
          await listener(observation);
          delivered++;
        }
      },
    );
    return delivered;
  }

  async rootRuns(): Promise<string[]> {
    return (await this.log.listStreams())
      .filter((stream) => stream.startsWith(this.prefix))
      .map((stream) => decodeStoreName(stream.slice(this.prefix.length)));
  }

  /** Walk the stream page by page; `visit` returns false to stop; `afterPage` runs after each page. */
  private async scan(
    rootRunId: string,
    visit: (observation: AgentObservation) => boolean,
    afterPage?: () => Promise<void>,
  ): Promise<void> {
    const stream = this.stream(rootRunId);
    for (let offset = 0; ; ) {
      const page = await this.log.readFrom(stream, offset, PAGE);
      let more = true;
      for (const entry of page) {
        if (!isObservation(entry.value)) {
          // A damaged entry (a `null` line, a foreign value) is skipped, not fatal to the read.
          this.warn(
            damagedRecord(
              { file: this.where, record: stream, offset: entry.offset },
              "is not a journal observation",
            ),
          );
          continue;
        }
        if (!visit(entry.value as unknown as AgentObservation)) {
          more = false;
          break;
        }
      }
      await afterPage?.();
      const last = page.at(-1);
      // A short page is not the end: a file log may have skipped a corrupt line. Stop on an empty one.
      if (!more || last === undefined) return;
      offset = last.offset + 1;
    }
  }

  private stream(rootRunId: string): string {
    return `${this.prefix}${encodeStoreName(rootRunId)}`;
  }
}
