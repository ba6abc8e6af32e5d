import {
  type JsonObject,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  type ToolCall,
} from "@tinyagents/inference";
import type { EventRecord } from "../../contracts/agent-event.js";
import type { ToolResult } from "../../contracts/tool-result.js";
import type { Redactor } from "../../observability/redaction.js";
import type { CassetteModelCall, CassetteRequest, CassetteRun, CassetteToolCall } from "./cassette.js";
import {
  type DiffTolerances,
  describeDifference,
  diffRequests,
  type FieldDifference,
  shown,
} from "./request-diff.js";
import { liveRequest, liveResponse, responseFromCassette, toolContentFromResult } from "./request-view.js";

/** Where a replay first left the recording. */
export interface ReplayDivergence {
  /** "model call 3", or `model call 2 of sub-agent "research" (recorded run research-d1-…)`. */
  step: string;
  /** One line per difference, the first one first (at most 10). */
  lines: string[];
  /** The field-level differences of a request (empty for a missing or extra call). */
  differences: FieldDifference[];
}

/** One run's position in its cassette section while it replays. */
class Cursor {
  modelCalls = 0;
  private readonly childrenUsed = new Set<CassetteRun>();
  private readonly tools: Map<string, CassetteToolCall>;

  constructor(
    readonly section: CassetteRun,
    readonly label: string,
  ) {
    this.tools = new Map(section.toolCalls.map((call) => [call.callId, call]));
  }

  tool(callId: string): CassetteToolCall | undefined {
    return this.tools.get(callId);
  }

  /** The next recorded child run of sub-agent `name` not replayed yet. */
  nextChild(name: string): CassetteRun | undefined {
    const child = (this.section.children ?? []).find((c) => c.agent === name && !this.childrenUsed.has(c));
    if (child !== undefined) this.childrenUsed.add(child);
    return child;
  }
}

/** How one replay behaves (resolved from the cassette's tolerances and the call's options). */
export interface SessionSettings {
  rootRunId: string;
  tools: "replay" | "live";
  reexecute: ReadonlySet<string>;
  whatIf: boolean;
  /** What-if against a live model: the model is called, not served from the cassette. */
  liveModel: boolean;
  diff: DiffTolerances;
  redactor: Redactor;
  /** Applies a recorded steering command to the root run (after the model call it followed). */
  steer?: (entry: JsonObject) => void;
}

/**
 * The state of one `replayRun`: which recorded section each live run replays, how far it got,
 * and the first divergence. The replay middleware on every harness of the tree asks it.
 */
export class ReplaySession {
  private readonly cursors = new Map<string, Cursor>();
  /** The first divergence (what-if mode collects it instead of failing). */
  divergence: ReplayDivergence | undefined;
  /** The error that stopped the replay (it fails the run; `replayRun` rethrows it). */
  failure: TinyAgentsError | undefined;
  replayedTools = 0;
  liveTools = 0;

  constructor(
    readonly root: CassetteRun,
    readonly settings: SessionSettings,
  ) {
    this.cursors.set(settings.rootRunId, new Cursor(root, ""));
  }

  /** Every event of the replayed tree: a child run starting is matched to its recorded section. */
  readonly onEvent = (record: EventRecord): void => {
    const e = record.event;
    if (e.type !== "subagent.started") return;
    const parent = this.cursors.get(record.runId);
    if (parent === undefined) return;
    const child = parent.nextChild(e.name);
    if (child === undefined) {
      // Not thrown here (an `onEvent` throw is only logged): the child's first model call fails
      // the run, and `replayRun` reports this first divergence.
      const divergence: ReplayDivergence = {
        step: `sub-agent "${e.name}"${parent.label}`,
        lines: [`the run started sub-agent "${e.name}", which the recording of this run does not have`],
        differences: [],
      };
      this.divergence ??= divergence;
      if (!this.settings.whatIf) this.fail(divergenceError(divergence));
      return;
    }
    this.cursors.set(
      e.childRunId,
      new Cursor(child, ` of sub-agent "${e.name}" (recorded run ${child.runId})`),
    );
  };

  private cursor(runId: string): Cursor {
    const cursor = this.cursors.get(runId);
    if (cursor !== undefined) return cursor;
    if (this.settings.whatIf) throw whatIfEnd(`run ${runId} has no section in the cassette`);
    throw this.fail(
      new TinyAgentsError("validation", `replay: run ${runId} has no section in the cassette`, {
        details: { reason: "replay_diverged", runId },
      }),
    );
  }

  /** The recorded answer to this request, after checking the request against the recording. */
  async modelCall(
    runId: string,
    request: ModelRequest,
    next: () => Promise<ModelResponse>,
  ): Promise<ModelResponse> {
    const cursor = this.cursor(runId);
    const n = cursor.modelCalls++;
    const step = `model call ${n + 1}${cursor.label}`;
    const recorded: CassetteModelCall | undefined = cursor.section.modelCalls[n];
    if (recorded === undefined) {
      this.diverge({
        step,
        lines: [
          `the run made model call ${n + 1}; the recording of this run has ${cursor.section.modelCalls.length}`,
        ],
        differences: [],
      });
      // What-if: a live model answers; without one there is no answer to give, and nothing is
      // sent to the agent's own (possibly real) model: the run stops here.
      if (this.settings.liveModel) return next();
      throw whatIfEnd(`${step} has no recorded answer (pass \`model\` to answer it live)`);
    }
    const live = liveRequest(request, this.settings.redactor);
    this.compare(step, recorded.request, live);
    if (this.settings.liveModel) {
      const response = await next();
      this.compareResponse(step, recorded, response);
      return response;
    }
    if (recorded.error !== undefined) {
      throw new TinyAgentsError(recorded.error.code, recorded.error.message, {
        ...(recorded.error.details === undefined ? {} : { details: recorded.error.details }),
      });
    }
    if (recorded.response === undefined) {
      throw this.fail(
        new TinyAgentsError(
          "validation",
          `replay: ${step} has no recorded response (the recording ended during this call)`,
          { details: { reason: "replay_diverged", step } },
        ),
      );
    }
    this.steerAfter(cursor, n + 1);
    return responseFromCassette(recorded.response);
  }

  /** Send the root run's recorded steering commands that followed model call `n`. */
  private steerAfter(cursor: Cursor, n: number): void {
    const steer = this.settings.steer;
    if (steer === undefined || cursor.section !== this.root) return;
    for (const entry of this.root.steering ?? []) {
      if (entry.accepted === true && entry.afterModelCall === n) steer(entry);
    }
  }

  /** Model calls the root run has made so far. */
  rootModelCalls(): number {
    return this.cursors.get(this.settings.rootRunId)?.modelCalls ?? 0;
  }

  /** True while the root run has recorded model calls it has not made (a paused run goes on). */
  rootUnfinished(): boolean {
    const cursor = this.cursors.get(this.settings.rootRunId);
    return cursor !== undefined && cursor.modelCalls < this.root.modelCalls.length;
  }

  /** The recorded result of a tool call, or the live one (sub-agents, `reexecute`, `tools: "live"`). */
  async toolCall(
    runId: string,
    call: ToolCall,
    runsChild: boolean,
    next: () => Promise<ToolResult>,
  ): Promise<ToolResult> {
    const cursor = this.cursor(runId);
    const recorded = cursor.tool(call.id);
    const live = runsChild || this.settings.tools === "live" || this.settings.reexecute.has(call.name);
    if (live) {
      if (!runsChild) this.liveTools++;
      return next();
    }
    const step = `tool call ${call.id} ("${call.name}")${cursor.label}`;
    if (recorded === undefined && this.settings.whatIf) {
      // Never run a tool the recording did not run unless asked to (it may have side effects).
      this.diverge({ step, lines: ["the recording of this run has no such call"], differences: [] });
      throw whatIfEnd(`${step} is not in the recording (execute new calls with tools: "live" or reexecute)`);
    }
    if (recorded?.error !== undefined && recorded.result === undefined) {
      this.replayedTools++;
      const { code, message, details } = recorded.error;
      throw new TinyAgentsError(code, message, details === undefined ? {} : { details });
    }
    if (recorded === undefined || recorded.result === undefined) {
      throw this.fail(
        new TinyAgentsError(
          "validation",
          recorded === undefined
            ? `replay diverged at ${step}: the recording of this run has no such call. Run it live with tolerances.reexecute: ["${call.name}"] or tools: "live"`
            : `replay: ${step} has no recorded result. Run it live with tolerances.reexecute: ["${call.name}"]`,
          { details: { reason: "replay_diverged", step } },
        ),
      );
    }
    if (JSON.stringify(recorded.arguments) !== JSON.stringify(call.arguments)) {
      this.diverge({
        step,
        lines: [
          `arguments changed: was ${shown(recorded.arguments)}, now ${shown(call.arguments as JsonValue)}`,
        ],
        differences: [],
      });
    }
    this.replayedTools++;
    return {
      callId: call.id,
      toolName: call.name,
      content: toolContentFromResult(recorded.result),
      isError: recorded.isError === true,
      elapsedMs: 0,
    };
  }

  /** Recorded sections whose model calls were not all made: the run stopped early. */
  unfinished(): string | undefined {
    for (const cursor of this.cursors.values()) {
      const total = cursor.section.modelCalls.length;
      if (cursor.modelCalls < total) {
        return `the run${cursor.label} ended after ${cursor.modelCalls} model call(s); the recording has ${total} (model call ${cursor.modelCalls + 1} was never made)`;
      }
    }
    return undefined;
  }

  /** The recorded decision on an approval of live run `runId` (undefined when none was made). */
  approval(runId: string, callId: string): { decision: "approve" | "reject"; reason?: string } | undefined {
    const found = this.cursors.get(runId)?.section.approvals?.find((a) => a.callId === callId);
    if (found === undefined || found.decision === "pending") return undefined;
    return found.reason === undefined
      ? { decision: found.decision }
      : { decision: found.decision, reason: found.reason };
  }

  private compare(step: string, recorded: CassetteRequest, live: CassetteRequest): void {
    const differences = diffRequests(recorded, live, this.settings.diff);
    if (differences.length === 0) return;
    this.diverge({
      step,
      lines: differences.slice(0, 10).map((d) => describeDifference(d, recorded, live)),
      differences,
    });
  }

  private compareResponse(step: string, recorded: CassetteModelCall, response: ModelResponse): void {
    if (recorded.response === undefined) return;
    const live = liveResponse(response);
    const was = { content: recorded.response.content, toolCalls: recorded.response.toolCalls };
    const now = { content: live.content, toolCalls: live.toolCalls };
    if (JSON.stringify(was) === JSON.stringify(now)) return;
    this.diverge({
      step,
      lines: [
        `the answer changed: was ${shown(was as unknown as JsonValue)}, now ${shown(now as unknown as JsonValue)}`,
      ],
      differences: [],
    });
  }

  /** Record the first divergence; outside what-if mode it fails the replay. */
  private diverge(divergence: ReplayDivergence): void {
    if (this.divergence === undefined) this.divergence = divergence;
    if (this.settings.whatIf) return;
    throw this.fail(divergenceError(divergence));
  }

  private fail(error: TinyAgentsError): TinyAgentsError {
    this.failure ??= error;
    return error;
  }
}

/** Ends a what-if run where it cannot go on offline (`replayRun` reports, it does not fail). */
function whatIfEnd(message: string): TinyAgentsError {
  return new TinyAgentsError("validation", `what-if replay stopped: ${message}`, {
    details: { reason: "replay_what_if_end" },
  });
}

/** The error a divergence fails a replay with: the step, then one line per difference. */
export function divergenceError(divergence: ReplayDivergence): TinyAgentsError {
  const more = divergence.differences.length - divergence.lines.length;
  const text =
    `replay diverged at ${divergence.step}: ${divergence.lines[0] ?? ""}` +
    divergence.lines
      .slice(1)
      .map((line) => `\n  also: ${line}`)
      .join("") +
    (more > 0 ? `\n  (${more} more difference(s))` : "");
  return new TinyAgentsError("validation", text, {
    details: {
      reason: "replay_diverged",
      step: divergence.step,
      differences: divergence.differences.map((d) => ({ path: d.path, kind: d.kind })),
    },
  });
}
