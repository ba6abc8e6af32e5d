import type { JsonObject } from "@tinyagents/inference";
import type { TraceModel } from "./trace-model.js";

/** Trace-level fields of an exported run (the `exportRun` options that shape the trace). */
export interface LangfuseTraceOptions {
  /** Trace name (default: the root run's agent name, else `tinyagents run`). */
  traceName?: string;
  userId?: string;
  /** Langfuse session (default: the root run's thread id). */
  sessionId?: string;
  tags?: string[];
  /** Trace metadata (JSON). */
  metadata?: JsonObject;
  /** Langfuse environment (`[a-z0-9-_]`, at most 40 chars; Langfuse maps invalid values to `default`). */
  environment?: string;
  release?: string;
}

/** The trace fields with defaults applied for one trace model. */
export interface ResolvedTraceFields {
  name: string;
  userId?: string;
  sessionId?: string;
  tags: string[];
  metadata: JsonObject;
  environment?: string;
  release?: string;
}

/** Apply the defaults of {@link LangfuseTraceOptions} to `model`. */
export function resolveTraceFields(model: TraceModel, options: LangfuseTraceOptions): ResolvedTraceFields {
  const fields: ResolvedTraceFields = {
    name: options.traceName ?? model.agentName ?? "tinyagents run",
    tags: options.tags ?? [],
    metadata: { ...options.metadata, rootRunId: model.rootRunId },
  };
  const sessionId = options.sessionId ?? model.threadId;
  if (sessionId !== undefined) fields.sessionId = sessionId;
  if (options.userId !== undefined) fields.userId = options.userId;
  if (options.environment !== undefined) fields.environment = options.environment;
  if (options.release !== undefined) fields.release = options.release;
  return fields;
}

/** The observation that carries trace-level fields: the root run's, else the first root. */
export function traceRootKey(model: TraceModel): string | undefined {
  const rootKey = `run:${model.rootRunId}`;
  if (model.observations.some((obs) => obs.key === rootKey)) return rootKey;
  return model.observations.find((obs) => obs.parentKey === undefined)?.key;
}
