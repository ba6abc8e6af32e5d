import type { AgentObservation } from "./agent-observation.js";
import type { Projection, ProjectionSnapshot } from "./projection.js";

/** Where one run's time went. All times in epoch ms / milliseconds from the run's clock. */
export interface RunTiming {
  runId: string;
  startedAt?: number;
  endedAt?: number;
  /** `endedAt - startedAt` once the run finished. */
  durationMs?: number;
  /** Model attempts (each `model.completed` / `model.failed`). */
  modelAttempts: number;
  /** Sum of model attempt durations. */
  modelMs: number;
  /** Tool calls that finished (`tool.completed` / `tool.failed`). */
  toolCalls: number;
  /** Sum of tool durations (parallel tools overlap, so this can exceed wall time). */
  toolMs: number;
  /** First `model.started` to the first `model.*_delta` of the run (streaming runs only). */
  firstTokenMs?: number;
}

/** Timing summaries per run, from lifecycle, model and tool observations. */
export class TimingProjection implements Projection<Record<string, RunTiming>> {
  readonly name = "timing";
  readonly projectionVersion = 1;
  private readonly runs = new Map<string, RunTiming & { firstModelStart?: number }>();
  private sourceOffset = -1;

  apply(o: AgentObservation): void {
    this.sourceOffset = Math.max(this.sourceOffset, o.offset);
    const e = o.event;
    let run = this.runs.get(o.runId);
    if (run === undefined) {
      run = { runId: o.runId, modelAttempts: 0, modelMs: 0, toolCalls: 0, toolMs: 0 };
      this.runs.set(o.runId, run);
    }
    switch (e.type) {
      case "run.started":
        run.startedAt = o.ts;
        break;
      case "run.completed":
      case "run.failed":
      case "run.interrupted":
        run.endedAt = o.ts;
        if (run.startedAt !== undefined) run.durationMs = o.ts - run.startedAt;
        break;
      case "model.started":
        run.firstModelStart ??= o.ts;
        break;
      case "model.text_delta":
      case "model.reasoning_delta":
      case "model.redacted_reasoning":
      case "model.tool_call_delta":
        if (run.firstTokenMs === undefined && run.firstModelStart !== undefined) {
          run.firstTokenMs = o.ts - run.firstModelStart;
        }
        break;
      case "model.completed":
      case "model.failed":
        run.modelAttempts++;
        run.modelMs += e.durationMs;
        break;
      case "tool.completed":
      case "tool.failed":
        run.toolCalls++;
        run.toolMs += e.durationMs;
        break;
      default:
        break;
    }
  }

  snapshot(): ProjectionSnapshot<Record<string, RunTiming>> {
    const value: Record<string, RunTiming> = {};
    for (const id of [...this.runs.keys()].sort()) {
      const { firstModelStart: _ignored, ...timing } = this.runs.get(id) as RunTiming & {
        firstModelStart?: number;
      };
      value[id] = { ...timing };
    }
    return {
      name: this.name,
      projectionVersion: this.projectionVersion,
      sourceOffset: this.sourceOffset,
      value,
    };
  }
}
