import {
  AgentRunError,
  attachObservability,
  type EventRecord,
  EventSink,
  type HarnessEventJournal,
  type HarnessStatusStore,
  type RunResult,
  type SteeringCommand,
  SteeringHandle,
  type SteeringPolicy,
} from "@tinyagents/harness";
import { callOfStep, type DurableValue } from "@tinyagents/harness/durability";
import { CoalescingJournal, ReplayReconcilingJournal } from "@tinyagents/harness/observability";
import { TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import { type ChildStarter, DbosDurableContext, type SignalEnvelope } from "./dbos-durable-context.js";
import { DBOS } from "./dbos-sdk.js";
import { registryWorkflowId, STEER_TOPIC, workflowName } from "./names.js";
import { taggedRunError } from "./run-errors.js";
import {
  type DbosRunPayload,
  type DbosRunResult,
  type DurableAgent,
  toDbosRunResult,
} from "./run-payload.js";
import { loadExecutor } from "./takeover.js";
import { DEFAULT_QUEUE, type ThreadQueueOptions, threadQueueParams } from "./thread-queue.js";

/** Options of {@link dbosAgents}. */
export interface DbosAgentsOptions<Names extends string> {
  /** The agents this worker runs, by name: one DBOS workflow each (`tinyagents.<name>`). */
  agents: Record<Names, DurableAgent>;
  /** The Postgres database DBOS keeps its system tables in (created on launch when missing). */
  systemDatabaseUrl: string;
  /**
   * This worker's identity. DBOS recovers the workflows a dead worker left pending when a
   * process with the SAME executor id launches again (or when a live one calls
   * {@link DbosAgents.takeOver} with it). Default: `worker-<pid>` — set a stable one per
   * deployment slot (a pod's ordinal, a systemd instance name) so a restart finds its runs.
   */
  executorId?: string;
  /**
   * The application version every worker shares (default `tinyagents`). DBOS only recovers a
   * workflow on a worker of the version that started it; by default it hashes the workflow
   * source, which differs between builds — an explicit version keeps recovery working across them.
   */
  appVersion?: string;
  /** The DBOS application name (default `tinyagents`): scopes workflows and queues in the database. */
  appName?: string;
  /** The per-thread queue (name, polling interval, per-worker concurrency). */
  queue?: ThreadQueueOptions;
  /**
   * Every event of every run this worker executes, live (model deltas included). Not journaled:
   * a run re-driven elsewhere emits its remaining events from the worker that finishes it.
   */
  onEvent?: (record: EventRecord, agent: Names) => void;
  /**
   * The shared event journal (and status store) every worker writes its runs' events to — a
   * Postgres or SQLite one that clients read with `events()`. A recovered run continues the
   * journal's offsets; the events of replayed steps are not written again, and a call the dead
   * worker left unfinished is closed by `model.abandoned` / `tool.abandoned` (see
   * `ReplayReconcilingJournal`).
   */
  journal?: HarnessEventJournal;
  /**
   * Most of one run's events waiting to be journaled (default 10,000). Never a loss: past half of
   * it the run waits before its next step until the journal caught up (back-pressure, no
   * `journal.dropped`).
   */
  maxJournalQueue?: number;
  statusStore?: HarnessStatusStore;
  /**
   * Which steering commands runs accept (`client.steer`). Without it runs take none, and no
   * step pays for looking: with it, before each model step and after each human wait the run
   * drains its `steer` messages (one DBOS `recv` with no wait, journaled, so a replay sees the
   * same commands at the same points) onto its `SteeringHandle`, applied at the next checkpoint.
   */
  steering?: SteeringPolicy;
  /** DBOS's log level (default `warn`). */
  logLevel?: string;
}

/** A worker process's DBOS agents: launch, take over a dead worker's runs, shut down. */
export interface DbosAgents<Names extends string> {
  readonly executorId: string;
  readonly queueName: string;
  readonly agentNames: readonly Names[];
  /**
   * Connect to Postgres, register the queue, recover this executor's pending runs, start
   * dequeuing, and mark this worker's agents as served (clients refuse to start any other).
   */
  launch(): Promise<void>;
  /**
   * Move the pending runs of a worker that is gone for good (`executorId`) to this application's
   * queues, where any live worker picks them up: DBOS's `recoverPendingWorkflows` for that
   * executor. Returns the run ids. Call it only for a worker known to be dead: a live one keeps
   * executing its runs, and both would then run the remaining steps.
   */
  takeOver(executorId: string): Promise<string[]>;
  /**
   * Stop dequeuing and disconnect; in-flight runs stay pending, and a restarted worker (same
   * executor id) or `takeOver` from another one recovers them. The runs this process was still
   * executing are then aborted (their signal, so a tool or model call in progress stops) and
   * awaited, at most `settleMs` (default 10 s): once `shutdown` resolves, this process starts no
   * model call or tool for them any more. Nothing of that abort is recorded: DBOS is already
   * disconnected and each run is detached from the journal and status store first, so the
   * recovered run continues from its last recorded step. The runs are stopped even when DBOS's
   * own shutdown fails (that error is then rethrown). Calling it again returns the same promise.
   */
  shutdown(options?: { settleMs?: number }): Promise<void>;
}

let registered = false;
/** A child run on another worker is awaited by polling its status (DBOS's default: every second). */
const CHILD_RESULT_POLLING_MS = 100;

/**
 * Register `agents` as DBOS workflows in this process (the DBOS runtime is one per process: call
 * this once, before `launch`). Each agent's workflow runs the harness's one loop with a
 * {@link DbosDurableContext}: the workflow id is the run id, model and tool calls are DBOS steps,
 * approvals and steering are DBOS messages, and a sub-agent with a registered agent name runs as
 * a child workflow. Runs are started by {@link createDbosClient} through one queue partitioned by
 * thread id with partition concurrency 1, so one thread runs one run at a time, in start order.
 */
export function dbosAgents<Names extends string>(options: DbosAgentsOptions<Names>): DbosAgents<Names> {
  if (registered) {
    throw new TinyAgentsError(
      "conflict",
      "dbosAgents was already called in this process: DBOS has one runtime per process; register every agent in one call",
    );
  }
  const names = Object.keys(options.agents) as Names[];
  if (names.length === 0) throw new TinyAgentsError("validation", "dbosAgents needs at least one agent");
  registered = true;
  const executorId = options.executorId ?? `worker-${process.pid}`;
  const queue = options.queue ?? {};
  const queueName = queue.name ?? DEFAULT_QUEUE;
  const workflows = new Map<string, (payload: DbosRunPayload) => Promise<DbosRunResult | DurableValue>>();
  /** The runs this process is executing: detached from their journal, aborted and awaited by `shutdown`. */
  const inFlight = new Set<InFlightRun>();
  let stopping: Promise<void> | undefined;
  const shutDownError = () =>
    new TinyAgentsError(
      "cancelled",
      "the worker shut down; the run stays pending and is recovered by a restarted worker or takeOver",
    );

  /**
   * A sub-agent run placed by the engine: when its agent is registered here, a child workflow on
   * the runs queue (its own partition: any worker may take it; several run in parallel), awaited;
   * its value is the child's whole run, as the parent's sub-agent expects. Otherwise undefined:
   * the context runs the child in this workflow, inside one step.
   */
  const startChild: ChildStarter = (agent, runId, input) => {
    const workflow = workflows.get(agent);
    if (workflow === undefined) return undefined;
    return (async () => {
      const payload: DbosRunPayload = { input: input as DbosRunPayload["input"], child: true };
      const handle = await DBOS.startWorkflow(workflow, {
        workflowID: runId,
        queueName,
        enqueueOptions: { queuePartitionKey: runId },
      })(payload);
      return (await handle.getResult({ pollingIntervalMs: CHILD_RESULT_POLLING_MS })) as DurableValue;
    })();
  };

  // Every run of this worker writes through one CoalescingJournal: the events all runs emit in a
  // turn are one journal write (one group commit), not one per run — under load the per-run
  // writes queued behind each other and the journal lagged the runs by seconds.
  const sharedJournal = options.journal === undefined ? undefined : new CoalescingJournal(options.journal);

  /**
   * With a shared journal: the run's events are observed into journal + status. A recovered run
   * replays its steps and emits their events again: the journal is reconciled against what the
   * dead worker stored (`ReplayReconcilingJournal`), so the stream reads like one run.
   */
  const observe = async (runOptions: Parameters<DurableAgent["run"]>[1]) => {
    const { statusStore } = options;
    const journal = sharedJournal;
    if (journal === undefined) return undefined;
    const reconciled = await ReplayReconcilingJournal.open(journal, runOptions.runId);
    const events = new EventSink(runOptions.runId, { startOffset: reconciled.nextOffset });
    runOptions.events = events;
    const observed = attachObservability(events, {
      journal: reconciled,
      journalOverflow: "wait",
      ...(options.maxJournalQueue === undefined ? {} : { maxQueue: options.maxJournalQueue }),
      ...(statusStore === undefined ? {} : { statusStore }),
    });
    return { observed, reconciled };
  };

  for (const name of names) {
    const agent = options.agents[name];
    const onEvent = options.onEvent;
    const run = async (payload: DbosRunPayload): Promise<DbosRunResult | DurableValue> => {
      // Registered before the first await, so a shutdown during the setup below sees this run.
      if (stopping !== undefined) throw shutDownError();
      const entry = new InFlightRun();
      inFlight.add(entry);
      try {
        return await execute(payload, entry);
      } finally {
        inFlight.delete(entry);
        entry.finished();
      }
    };
    const execute = async (
      payload: DbosRunPayload,
      entry: InFlightRun,
    ): Promise<DbosRunResult | DurableValue> => {
      const policy = options.steering;
      const steering = policy === undefined ? undefined : new SteeringHandle(policy);
      let journaled: Awaited<ReturnType<typeof observe>>;
      const durable = await DbosDurableContext.open({
        startChild,
        // Back-pressure: a run whose journal queue is over half full waits before its next step.
        beforeStep: async () => journaled?.observed.journalSink?.drain(),
        // A call DBOS has no recording of runs here: its attempt is journaled even when the dead
        // worker journaled the end of one it never recorded (the run goes on with this one).
        onLiveStep: (name, { kind }) => {
          const call = callOfStep(name, kind);
          if (call !== undefined) journaled?.reconciled.liveCall(call.kind, call.callId);
        },
        ...(steering === undefined ? {} : { pullCommands: () => pullSteering(steering) }),
      });
      const runOptions: Parameters<DurableAgent["run"]>[1] = { runId: durable.runId, durable };
      if (steering !== undefined) runOptions.steering = steering;
      if (payload.threadId !== undefined) runOptions.threadId = payload.threadId;
      if (onEvent !== undefined) runOptions.onEvent = (record) => onEvent(record, name);
      journaled = await observe(runOptions);
      entry.observed = journaled?.observed;
      runOptions.signal = entry.controller.signal;
      let result: RunResult;
      try {
        // Shut down while opening: nothing to abort yet, and nothing to run.
        entry.controller.signal.throwIfAborted();
        result = await agent.run(payload.input, runOptions);
      } catch (error) {
        // Refused before its loop (an input the harness cannot read): the workflow fails with the
        // harness's own code and message, which the client's `result` surfaces as they were.
        if (!AgentRunError.isAgentRunError(error)) throw taggedRunError(error);
        if (payload.child === true) return toJsonRun(error.run);
        return toDbosRunResult(error.run, toTinyAgentsError(error).toJSON());
      } finally {
        await journaled?.observed.close();
      }
      return payload.child === true ? toJsonRun(result) : toDbosRunResult(result);
    };
    workflows.set(name, DBOS.registerWorkflow(run, { name: workflowName(name) }));
  }
  // Marks an agent as served (see `registryWorkflowId`): started once per agent at launch.
  const served = DBOS.registerWorkflow(async (agent: string) => agent, { name: "tinyagents.registry" });

  DBOS.setConfig({
    name: options.appName ?? "tinyagents",
    systemDatabaseUrl: options.systemDatabaseUrl,
    executorID: executorId,
    applicationVersion: options.appVersion ?? "tinyagents",
    logLevel: options.logLevel ?? "warn",
  });

  return {
    executorId,
    queueName,
    agentNames: names,
    async launch() {
      await DBOS.launch();
      await DBOS.registerQueue(queueName, { ...threadQueueParams(queue), onConflict: "always_update" });
      for (const name of names) {
        await (await DBOS.startWorkflow(served, { workflowID: registryWorkflowId(name) })(name)).getResult();
      }
    },
    async takeOver(deadExecutorId: string) {
      if (deadExecutorId === executorId) {
        throw new TinyAgentsError(
          "validation",
          "takeOver needs another worker's executor id, not this one's",
        );
      }
      const executor = await loadExecutor();
      const handles = await executor.recoverPendingWorkflows([deadExecutorId]);
      return handles.map((h) => h.workflowID);
    },
    shutdown(shutdownOptions = {}) {
      stopping ??= (async () => {
        try {
          await DBOS.shutdown();
        } finally {
          // DBOS records nothing from here on (or failed to stop: the runs must stop anyway).
          // Each run is first detached from the journal and status store, so its abort is not
          // recorded there either; aborting only stops this process from calling models and
          // tools for runs another worker will recover.
          const running = [...inFlight];
          const reason = shutDownError();
          for (const run of running) {
            run.observed?.detach();
            run.controller.abort(reason);
          }
          await settled(
            running.map((run) => run.done),
            shutdownOptions.settleMs ?? SHUTDOWN_SETTLE_MS,
          );
        }
      })();
      return stopping;
    },
  };
}

/** A run this process is executing, as `shutdown` sees it. */
class InFlightRun {
  readonly controller = new AbortController();
  /** Its observability pipeline, once attached (detached at shutdown: the abort is not journaled). */
  observed: { detach(): void } | undefined;
  finished: () => void = () => undefined;
  /** Settles when the run's workflow function returned or threw. */
  readonly done = new Promise<void>((resolve) => {
    this.finished = resolve;
  });
}

/** How long `shutdown` waits for the runs it aborted to stop (a tool ignoring its signal). */
const SHUTDOWN_SETTLE_MS = 10_000;

/** Wait until every promise settled, or `ms` passed; never rejects, leaves no timer behind. */
async function settled(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** A run as the plain JSON a workflow returns (a child's value, recorded by its parent). */
function toJsonRun(run: RunResult): DurableValue {
  return JSON.parse(JSON.stringify(run)) as DurableValue;
}

/** Move every steering command sent to this run since the last pull onto its handle. */
async function pullSteering(handle: SteeringHandle): Promise<void> {
  for (;;) {
    const message = await DBOS.recv<SignalEnvelope>(STEER_TOPIC, { timeoutSeconds: 0 });
    if (message === null) return;
    try {
      handle.send(message.v as unknown as SteeringCommand);
    } catch (error) {
      // The client validates before sending; a malformed message from elsewhere is dropped, not fatal.
      DBOS.logger.warn(`dropped a malformed steering message: ${toTinyAgentsError(error).message}`);
    }
  }
}
