/**
 * The fault-injection kit of the loop tests (not a test file itself): run the harness through a
 * fault with the whole observability pipeline attached — an event recorder, a JSONL journal on
 * disk (`AppendLogEventJournal` over `JsonlAppendLog`) and a status store — then check the
 * documented outcome of a failed run in one call ({@link expectFailedRun}):
 *
 * - the error code, and `run.failed` as the run's LAST event (`run.started` first, one terminal);
 * - balanced middleware brackets (every `middleware.started` closed by `completed` or `failed`);
 * - the status record (`failed` / `cancelled`, phase `done`, nothing active, the error) — both
 *   the one the run returned and the one the status store holds;
 * - the journal read back from disk: exactly the events, in order, with their offsets;
 * - a partial transcript that is valid, JSON-round-trippable data;
 * - nothing left running: no abort listener on the caller's signal, no new timer, socket or
 *   file handle once the run has returned.
 */
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentHarness,
  type AgentObservation,
  type AgentRun,
  type AgentStreamItem,
  type AnyTool,
  AppendLogEventJournal,
  attachObservability,
  type EventRecord,
  EventSink,
  type HarnessEventJournal,
  type HarnessRunStatus,
  type HarnessStatusStore,
  InMemoryHarnessStatusStore,
  type Middleware,
  type RunConfig,
  type RunPolicyInput,
  type ShortTermMemory,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { DeterministicClock, DeterministicIds, EventRecorder } from "@tinyagents/harness/testkit";
import type { ToolTimeoutSettings } from "@tinyagents/harness/tool";
import {
  type ChatModel,
  type Clock,
  type ErrorCode,
  type TinyAgentsError,
  validateMessages,
} from "@tinyagents/inference";
import { expect } from "vitest";
import { activeResources, settleResources } from "../../../../test/setup/active-resources.js";

/** One loop run under a fault. Everything but `models` is optional. */
export interface FaultScenario {
  /** Registered in order (the first is the default model). */
  models: Record<string, ChatModel>;
  streaming: boolean;
  tools?: readonly AnyTool[];
  /** Registered after the {@link observerMiddleware}, in this order. */
  middleware?: readonly Middleware[];
  policy?: RunPolicyInput;
  config?: Partial<RunConfig>;
  /** The caller's signal (default: a fresh, never-aborted one). Checked for leftover listeners. */
  signal?: AbortSignal;
  input?: string;
  /** Default: a fresh `DeterministicClock` (retry backoff and rate-limit waits are virtual). */
  clock?: Clock;
  toolTimeouts?: ToolTimeoutSettings;
  /** Replace the JSONL journal (read back from this one after the run). */
  journal?: HarnessEventJournal;
  /** Replace the in-memory status store. */
  statusStore?: HarnessStatusStore;
  memory?: ShortTermMemory;
  /** Leave out the always-on observer middleware. */
  noObserver?: boolean;
  /**
   * Called after the run, before the leftover check: e.g. the replay server drops idle
   * keep-alive connections (the platform fetch pools them; they are not the run's to close).
   */
  afterRun?: () => void | Promise<void>;
}

/** What a faulted run left behind. */
export interface FaultRun {
  run: AgentRun;
  status: HarnessRunStatus;
  error: TinyAgentsError | undefined;
  /** Every event, as the recorder saw it. */
  events: EventRecord[];
  types: string[];
  /** The journal, read back from the JSONL files after the run. */
  journal: AgentObservation[];
  /** The status store's record of the run. */
  storedStatus: HarnessRunStatus | undefined;
  /** The streamed items (streaming runs). */
  items: AgentStreamItem[];
  harness: AgentHarness<undefined, undefined>;
  /** Resources still alive (beyond the run's start) once the run returned and settled. */
  leftover: string[];
  /** Abort listeners left on the caller's signal. */
  signalListeners: number;
  /** Storage failures the observability pipeline reported (journal, status store). */
  observabilityErrors: unknown[];
}

/**
 * A middleware implementing every bracketed hook as a pass-through, so every run exercises (and
 * {@link expectFailedRun} checks) the balance of `middleware.started` / `completed` / `failed`.
 */
export function observerMiddleware(): Middleware {
  return {
    name: "observer",
    beforeAgent: () => {},
    afterAgent: () => {},
    beforeModel: () => {},
    afterModel: () => {},
    beforeTool: () => {},
    afterTool: () => {},
    wrapModelCall: (_ctx, request, next) => next(request),
    wrapToolCall: (_ctx, call, next) => next(call),
    onError: () => {},
  };
}

let runCounter = 0;

/**
 * Run `scenario` once with a JSONL journal and a status store attached; never throws for run
 * failures. Once the run returned and the journal was closed, waits (briefly) for resources to
 * settle and records in `leftover` whatever the run left alive.
 */
export async function runFault(scenario: FaultScenario): Promise<FaultRun> {
  const baseline = activeResources();
  const result = await runOnce(scenario);
  await scenario.afterRun?.();
  result.leftover = await settleResources(baseline);
  return result;
}

async function runOnce(scenario: FaultScenario): Promise<FaultRun> {
  const clock = scenario.clock ?? new DeterministicClock();
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-fault-"));
  const log = new JsonlAppendLog(dir, { onWarning: () => {} });
  const journal = scenario.journal ?? new AppendLogEventJournal(log);
  const statusStore = scenario.statusStore ?? new InMemoryHarnessStatusStore();
  const harness = new AgentHarness<undefined, undefined>({
    clock,
    ids: new DeterministicIds(),
    ...(scenario.policy === undefined ? {} : { policy: scenario.policy }),
    ...(scenario.toolTimeouts === undefined ? {} : { toolTimeouts: scenario.toolTimeouts }),
    ...(scenario.memory === undefined ? {} : { memory: scenario.memory }),
  });
  for (const [name, model] of Object.entries(scenario.models)) harness.registerModel(name, model);
  for (const t of scenario.tools ?? []) harness.registerTool(t);
  if (scenario.noObserver !== true) harness.use(observerMiddleware());
  for (const m of scenario.middleware ?? []) harness.use(m);

  const runId = scenario.config?.runId ?? `fault-${++runCounter}`;
  const sink = new EventSink(runId, { now: () => clock.now() });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  const observabilityErrors: unknown[] = [];
  const observability = attachObservability(sink, {
    journal,
    statusStore,
    // Every event, so the journal can be checked against exactly what was emitted (the default
    // leaves bookkeeping events out: observability/journal-events.test.ts).
    journalEvents: "all",
    onError: (error) => observabilityErrors.push(error),
  });
  const signal = scenario.signal ?? new AbortController().signal;
  const config: Partial<RunConfig> = { ...scenario.config, runId };
  const options = { events: sink, signal };
  const items: AgentStreamItem[] = [];
  let outcome: { run: AgentRun; status: HarnessRunStatus; error?: TinyAgentsError | undefined };
  try {
    if (scenario.streaming) {
      for await (const item of lowerLayer(harness).invokeStreaming(
        undefined,
        undefined,
        config,
        scenario.input ?? "hi",
        options,
      )) {
        items.push(item);
      }
      const last = items.at(-1);
      if (last === undefined || last.type === "event")
        throw new Error("the stream ended without a terminal item");
      outcome = last.type === "failed" ? last : { run: last.run, status: last.status };
    } else {
      outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        config,
        scenario.input ?? "hi",
        options,
      );
    }
    await observability.close();
    const stored = await journal.read(runId);
    return {
      run: outcome.run,
      status: outcome.status,
      error: outcome.error,
      events: recorder.records,
      types: recorder.types(),
      journal: stored,
      storedStatus: await statusStore.get(runId),
      items,
      harness,
      leftover: [],
      signalListeners: getEventListeners(signal, "abort").length,
      observabilityErrors,
    };
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The documented outcome of a failed run. */
export interface FailureExpectation {
  code: ErrorCode;
  /** The run status (default `failed`; `cancelled` for code `cancelled`). */
  status?: "failed" | "cancelled";
  /** Roles of the partial transcript, in order. */
  transcript?: readonly string[];
}

/** Check everything a failed run must leave behind (see the file comment). */
export function expectFailedRun(result: FaultRun, expected: FailureExpectation): void {
  const { error, events, status } = result;
  expect(error?.code, error?.message).toBe(expected.code);
  expectTerminal(result, "run.failed");
  const failed = events.at(-1)?.event;
  expect(failed?.type === "run.failed" ? failed.error : undefined).toEqual(error?.toJSON());
  const runStatus = expected.status ?? (expected.code === "cancelled" ? "cancelled" : "failed");
  for (const record of [status, result.storedStatus]) {
    expect(record?.status).toBe(runStatus);
    expect(record?.error?.code).toBe(expected.code);
  }
  if (result.items.length > 0) {
    const last = result.items.at(-1);
    expect(last?.type).toBe("failed");
    expect(last?.type === "failed" ? last.error : undefined).toBe(error);
  }
  expectCommon(result, expected.transcript);
}

/** Check everything a run that recovered from a fault and completed must leave behind. */
export function expectCompletedRun(result: FaultRun, transcript?: readonly string[]): void {
  expect(result.error, result.error?.message).toBeUndefined();
  expectTerminal(result, "run.completed");
  for (const record of [result.status, result.storedStatus]) {
    expect(record?.status).toBe("completed");
    expect(record?.error).toBeUndefined();
  }
  if (result.items.length > 0) expect(result.items.at(-1)?.type).toBe("completed");
  expectCommon(result, transcript);
}

function expectTerminal(result: FaultRun, terminal: string): void {
  const { types } = result;
  const ends = types.filter((t) => t === "run.completed" || t === "run.failed" || t === "run.interrupted");
  expect(types[0]).toBe("run.started");
  expect(ends).toEqual([terminal]);
  expect(types.at(-1)).toBe(terminal);
}

function expectCommon(result: FaultRun, transcript: readonly string[] | undefined): void {
  const { events, status } = result;
  expectBalancedMiddleware(events);
  for (const record of [status, result.storedStatus]) {
    expect(record).toBeDefined();
    expect(record?.phase).toBe("done");
    expect(record?.activeToolCalls).toEqual([]);
    expect(record?.activeModelCall).toBeUndefined();
    expect(record?.endedAt).toBeDefined();
  }
  // Counts are not compared: the live tracker counts a model turn / tool call when the loop
  // admits it, the event-derived record when its `model.started` / `tool.started` is emitted, so
  // they differ when a middleware throws (or short-circuits) in between.

  // The journal on disk holds exactly what was emitted, in order, offsets included.
  expect(result.journal.map((o) => o.offset)).toEqual(events.map((r) => r.offset));
  expect(result.journal.map((o) => o.event)).toEqual(events.map((r) => JSON.parse(JSON.stringify(r.event))));
  if (result.items.length > 0) {
    expect(result.items.filter((i) => i.type === "event").map((i) => i.type === "event" && i.record)).toEqual(
      events,
    );
  }

  // The (partial) transcript is valid, plain JSON data.
  expect(() => validateMessages(result.run.messages, "run.messages")).not.toThrow();
  expect(JSON.parse(JSON.stringify(result.run.messages))).toEqual(result.run.messages);
  if (transcript !== undefined) expect(result.run.messages.map((m) => m.role)).toEqual(transcript);

  // Nothing left running.
  expect(result.signalListeners).toBe(0);
  expect(result.leftover).toEqual([]);
}

/** Every `middleware.started` is closed by exactly one `completed` or `failed` of the same middleware and hook. */
export function expectBalancedMiddleware(events: readonly EventRecord[]): void {
  const open = new Map<string, number>();
  for (const { event } of events) {
    if (event.type === "middleware.started") {
      const key = `${event.name}:${event.hook}`;
      open.set(key, (open.get(key) ?? 0) + 1);
    } else if (event.type === "middleware.completed" || event.type === "middleware.failed") {
      const key = `${event.name}:${event.hook}`;
      const count = open.get(key) ?? 0;
      expect(count, `${event.type} ${key} without a started`).toBeGreaterThan(0);
      open.set(key, count - 1);
    }
  }
  expect([...open].filter(([, count]) => count !== 0)).toEqual([]);
}

/** Events of one type, narrowed. */
export function eventsOf<T extends EventRecord["event"]["type"]>(
  result: FaultRun,
  type: T,
): Extract<EventRecord["event"], { type: T }>[] {
  return result.events
    .map((r) => r.event)
    .filter((e): e is Extract<EventRecord["event"], { type: T }> => e.type === type);
}

export const BOTH_PATHS = [
  ["unary", false],
  ["streaming", true],
] as const;
