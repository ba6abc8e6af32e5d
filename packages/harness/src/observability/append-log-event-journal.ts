import type { JsonValue } from "@tinyagents/inference";
import type { AppendLog } from "../store/append-log.js";
import { decodeStoreName, encodeStoreName } from "../store/store-names.js";
import type { AgentObservation } from "./agent-observation.js";
import {
  type HarnessEventJournal,
  type JournalQuery,
  queryFilter,
  type ReplayListener,
  validateQuery,
} from "./event-journal.js";

const PAGE = 1000;

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
 */
export class AppendLogEventJournal implements HarnessEventJournal {
  private readonly log: AppendLog;
  private readonly prefix: string;

  constructor(log: AppendLog, options: { streamPrefix?: string } = {}) {
    this.log = log;
    this.prefix = options.streamPrefix ?? "journal-";
  }

  async append(observation: AgentObservation): Promise<void> {
    await this.log.append(this.stream(observation.rootRunId), observation as unknown as JsonValue);
  }

  async appendMany(observations: readonly AgentObservation[]): Promise<void> {
    // Group by run tree, keeping order; one log write for the batch when the log can group
    // commit (SQLite: one transaction), else one per tree.
    const groups = new Map<string, JsonValue[]>();
    for (const observation of observations) {
      let group = groups.get(observation.rootRunId);
      if (group === undefined) {
        group = [];
        groups.set(observation.rootRunId, group);
      }
      group.push(observation as unknown as JsonValue);
    }
    if (this.log.appendGroups !== undefined && groups.size > 1) {
      await this.log.appendGroups(
        [...groups].map(([root, values]) => ({ stream: this.stream(root), values })),
      );
      return;
    }
    for (const [rootRunId, values] of groups) await this.log.appendMany(this.stream(rootRunId), values);
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
