import {
  type AgentHarness,
  type AgentRun,
  AgentRunError,
  attachObservability,
  type EventRecord,
  EventSink,
  type HarnessRunStatus,
  type WorkspaceDescriptor,
} from "@tinyagents/harness";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { type JsonObject, TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import type { CliStore } from "./cli-store.js";
import { contentFreeJournal } from "./content-capture.js";
import { newRunId } from "./run-ids.js";

/** Harnesses that already record trace details (chat runs one harness for many turns). */
const traced = new WeakSet<AgentHarness>();

/**
 * Journal what a run said, not only what it did: the prompt, the answers and the tool results
 * (`traceDetailsMiddleware` with content, redacted by the journal pipeline like every event), so
 * `tinyagents ui` can show the transcript. It records the request as sent wherever it is
 * registered. Should the agent register its own, one serves the run, with content if either asks
 * (with capture off the run's journal drops content anyway: `contentFreeJournal`).
 * `captureContent: false` (`--no-capture-content`) keeps the trace details without content (the
 * prompt-cache fingerprints, response ids, tool descriptions).
 */
export function recordTraceDetails(harness: AgentHarness, captureContent = true): void {
  if (traced.has(harness)) return;
  traced.add(harness);
  harness.use(traceDetailsMiddleware({ captureContent }));
}

/** One agent run as the CLI executes it. */
export interface TurnOptions {
  harness: AgentHarness;
  /** Where the run is journaled and listed; without one it is not recorded (nothing for `show`). */
  store?: CliStore | undefined;
  workspace?: WorkspaceDescriptor | undefined;
  prompt: string;
  command: "run" | "chat" | "demo";
  /**
   * Journal message content (default true): the prompt, streamed answers, tool arguments and
   * results. `false` journals the run's shape only, and the run record keeps no prompt.
   */
  captureContent?: boolean | undefined;
  modelSpec: string;
  /**
   * How the agent was built (`run`: its flags), kept in the run record when content is captured
   * so `tinyagents test export` can rebuild it.
   */
  agentFlags?: JsonObject | undefined;
  threadId?: string | undefined;
  signal?: AbortSignal;
  /** Every event as it happens (the renderer). */
  onRecord?: (record: EventRecord) => void;
}

/** What a turn produced: the run (partial when it failed) and its error, if any. */
export interface TurnResult {
  runId: string;
  run: AgentRun;
  status: HarnessRunStatus;
  error?: TinyAgentsError;
  /**
   * Set when the run's journal or status could not be written (a full disk, a read-only or
   * damaged store): the run may have finished, but `runs`/`show` will not know it as it was.
   */
  storageError?: TinyAgentsError;
  wallMs: number;
}

/**
 * Run the agent once, streaming, with every observation journaled and the status saved in the
 * SQLite store (so `tinyagents runs` and `show` can find it), and a run record for listings.
 * `run`, `chat` and `demo` all run through here.
 */
export async function executeTurn(options: TurnOptions): Promise<TurnResult> {
  const runId = newRunId();
  const started = Date.now();
  const capture = options.captureContent !== false;
  if (options.store !== undefined) recordTraceDetails(options.harness, capture);
  const events = new EventSink(runId);
  const { store } = options;
  let storageError: TinyAgentsError | undefined;
  const obs =
    store === undefined
      ? undefined
      : attachObservability(events, {
          journal: capture ? store.journal : contentFreeJournal(store.journal),
          statusStore: store.statusStore,
          // Journal and status writes fail off the run's path: keep the first, to report it.
          onError: (error) => {
            storageError ??= toTinyAgentsError(error);
          },
        });
  await store?.saveRun({
    runId,
    command: options.command,
    model: options.modelSpec,
    prompt: capture ? options.prompt.slice(0, 200) : "",
    startedAt: started,
    threadId: options.threadId ?? null,
    ...(capture ? {} : { captureContent: false }),
    ...(capture && options.agentFlags !== undefined ? { agent: options.agentFlags } : {}),
  });
  const config = {
    runId,
    ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
    tags: [`cli:${options.command}`],
    metadata: { model: options.modelSpec },
  };
  let result: TurnResult | undefined;
  try {
    // The front door: the run streams (deltas reach `onRecord` through `onEvent`), and is durable
    // in the store — liveness (`tinyagents runs --reap` repairs a run whose process died) and
    // checkpoints after the journal flushed (`agent.recover(runId, ...)` / `superviseRuns`
    // continue it; the run is recorded as agent "cli").
    const stream = options.harness.stream(options.prompt, {
      ...config,
      events,
      ...(options.onRecord === undefined ? {} : { onEvent: options.onRecord }),
      ...(store === undefined || obs === undefined
        ? {}
        : {
            durable: {
              store: store.checkpoints,
              ownerId: `cli-${process.pid}`,
              agent: "cli",
              flush: () => obs.flush(),
            },
          }),
      ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    try {
      const run = await stream.result;
      // A RunResult is an AgentRun (the CLI's agents answer in text or JSON).
      result = { runId, run: run as AgentRun, status: run.status, wallMs: Date.now() - started };
    } catch (error) {
      if (!AgentRunError.isAgentRunError(error)) throw error;
      const failed = TinyAgentsError.isInstance(error.cause) ? error.cause : error;
      const run = error.run as AgentRun;
      result = { runId, run, status: error.status, error: failed, wallMs: Date.now() - started };
    }
  } finally {
    await obs?.close();
  }
  if (result === undefined) throw new Error(`run ${runId} ended without a result`);
  return storageError === undefined ? result : { ...result, storageError };
}
