import { type JsonObject, validationError } from "@tinyagents/inference";
import { type IngestionEnvelope, ingestionObservationId } from "./ingestion-batch.js";
import { otlpSpanId, otlpTraceId, stableHexId } from "./stable-id.js";
import type { TraceModel } from "./trace-model.js";

/** Langfuse score data types. */
export type LangfuseScoreDataType = "NUMERIC" | "CATEGORICAL" | "BOOLEAN";

/**
 * The observation a score is about (default: the whole trace). Ids are the harness's own:
 * a run's `agent` observation, one model call's `generation`, or one tool call.
 */
export type LangfuseScoreTarget =
  | { kind: "run"; runId: string }
  /**
   * A model call's generation (one per call, its retries and fallbacks inside). `attempt` is
   * accepted for compatibility and checked, but every attempt is the same generation.
   */
  | { kind: "generation"; runId: string; callId: string; attempt?: number }
  | { kind: "tool"; runId: string; callId: string };

/** Fields every score has, whatever its data type. */
export interface LangfuseScoreFields {
  /** Score name, e.g. `helpfulness`, `user_feedback` (non-empty). */
  name: string;
  comment?: string;
  /** Score metadata (JSON). */
  metadata?: JsonObject;
  /**
   * Score id; Langfuse upserts on it. Default: deterministic from the trace, the target and the
   * name, so sending a score again updates it instead of adding another.
   */
  id?: string;
  /** A Langfuse score config id (the server then checks name, range and categories against it). */
  configId?: string;
  /**
   * The root run id of the trace scored. `exportRun`: default the exported trace (required when
   * the records hold several root runs). `exportScores`: required.
   */
  rootRunId?: string;
  /** Score one observation of the trace instead of the trace itself. */
  observation?: LangfuseScoreTarget;
  /** Epoch ms of the envelope. Default: the trace's end (`exportRun`) or now (`exportScores`). */
  timestamp?: number;
}

/**
 * A score for a run's trace (or one of its observations). `dataType` may be left out: it is then
 * inferred from the value (number -> NUMERIC, string -> CATEGORICAL, boolean -> BOOLEAN). BOOLEAN
 * values go on the wire as `1` / `0`, as Langfuse wants.
 */
export type LangfuseScore = LangfuseScoreFields &
  (
    | { dataType?: "NUMERIC"; value: number }
    | { dataType?: "CATEGORICAL"; value: string }
    | { dataType?: "BOOLEAN"; value: boolean }
  );

/**
 * Opt-in automatic score (`exportRun` option `successScore`): one BOOLEAN score per exported trace,
 * `true` when the root run completed, `false` when it failed. Interrupted runs and runs whose
 * records end before they did get none.
 */
export type LangfuseSuccessScoreOption = boolean | { name?: string };

/** A validated score, ready to encode for either id scheme. */
export interface ResolvedScore {
  rootRunId: string;
  /** Observation key (`run:…`, `model:…`, `tool:…`) when the score targets an observation. */
  observationKey?: string;
  name: string;
  /** The wire value: BOOLEAN as 1 / 0. */
  value: number | string;
  dataType: LangfuseScoreDataType;
  comment?: string;
  metadata?: JsonObject;
  id?: string;
  configId?: string;
  timestamp: number;
}

/** Which ids a score refers to: the OTLP hex ids or the legacy ingestion ids. */
export type ScoreIdScheme = "otlp" | "ingestion";

const DATA_TYPES: readonly LangfuseScoreDataType[] = ["NUMERIC", "CATEGORICAL", "BOOLEAN"];

/**
 * Check `scores` (any input: also from plain JavaScript) and resolve them against the exported
 * trace models (`models` given: `exportRun`) or on their own (`models` undefined: `exportScores`,
 * where `rootRunId`, and a generation target's `attempt`, are required).
 *
 * @throws TinyAgentsError `validation` naming the field (`scores[2].value`) and what to fix.
 */
export function resolveScores(
  scores: unknown,
  where: string,
  defaultTimestamp: (rootRunId: string) => number,
  models?: readonly TraceModel[],
): ResolvedScore[] {
  if (!Array.isArray(scores)) {
    throw validationError(`${where}: scores must be an array of scores`, { field: "scores" });
  }
  const resolved: ResolvedScore[] = [];
  for (const [index, score] of scores.entries()) {
    resolved.push(resolveScore(score, `scores[${index}]`, where, defaultTimestamp, models));
  }
  return resolved;
}

function resolveScore(
  input: unknown,
  field: string,
  where: string,
  defaultTimestamp: (rootRunId: string) => number,
  models: readonly TraceModel[] | undefined,
): ResolvedScore {
  const fail = (subfield: string, message: string) =>
    validationError(`${where}: ${field}${subfield === "" ? "" : `.${subfield}`} ${message}`, {
      field: subfield === "" ? field : `${field}.${subfield}`,
    });
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw fail("", "must be a score object ({ name, value, dataType?, ... })");
  }
  const score = input as Record<string, unknown>;
  if (typeof score.name !== "string" || score.name.trim() === "") {
    throw fail("name", "must be a non-empty string");
  }
  const dataType = score.dataType ?? inferDataType(score.value);
  if (!DATA_TYPES.includes(dataType as LangfuseScoreDataType)) {
    throw score.dataType === undefined
      ? fail("value", `must be a number, a string or a boolean, got ${describe(score.value)}`)
      : fail("dataType", `must be one of ${DATA_TYPES.join(", ")}, got ${describe(score.dataType)}`);
  }
  const value = wireValue(dataType as LangfuseScoreDataType, score.value, fail);
  for (const key of ["comment"] as const) {
    if (score[key] !== undefined && typeof score[key] !== "string") throw fail(key, "must be a string");
  }
  for (const key of ["id", "configId", "rootRunId"] as const) {
    const v = score[key];
    if (v !== undefined && (typeof v !== "string" || v === "")) throw fail(key, "must be a non-empty string");
  }
  const metadata = score.metadata;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
  ) {
    throw fail("metadata", "must be a JSON object");
  }
  if (
    score.timestamp !== undefined &&
    (typeof score.timestamp !== "number" || !Number.isFinite(score.timestamp))
  ) {
    throw fail("timestamp", "must be epoch milliseconds (a finite number)");
  }
  const model = traceOf(score.rootRunId as string | undefined, models, fail);
  const rootRunId = model?.rootRunId ?? (score.rootRunId as string);
  const resolved: ResolvedScore = {
    rootRunId,
    name: score.name,
    value,
    dataType: dataType as LangfuseScoreDataType,
    timestamp: (score.timestamp as number | undefined) ?? defaultTimestamp(rootRunId),
  };
  if (score.observation !== undefined) {
    resolved.observationKey = observationKey(score.observation, model, fail);
  }
  if (score.comment !== undefined) resolved.comment = score.comment as string;
  if (metadata !== undefined) resolved.metadata = metadata as JsonObject;
  if (score.id !== undefined) resolved.id = score.id as string;
  if (score.configId !== undefined) resolved.configId = score.configId as string;
  return resolved;
}

type Fail = (subfield: string, message: string) => Error;

function inferDataType(value: unknown): LangfuseScoreDataType | undefined {
  if (typeof value === "number") return "NUMERIC";
  if (typeof value === "string") return "CATEGORICAL";
  if (typeof value === "boolean") return "BOOLEAN";
  return undefined;
}

function wireValue(dataType: LangfuseScoreDataType, value: unknown, fail: Fail): number | string {
  switch (dataType) {
    case "NUMERIC":
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw fail("value", `must be a finite number for a NUMERIC score, got ${describe(value)}`);
      }
      return value;
    case "CATEGORICAL":
      if (typeof value !== "string" || value === "") {
        throw fail(
          "value",
          `must be a non-empty string (the category) for a CATEGORICAL score, got ${describe(value)}`,
        );
      }
      return value;
    case "BOOLEAN":
      if (typeof value !== "boolean") {
        throw fail("value", `must be true or false for a BOOLEAN score, got ${describe(value)}`);
      }
      return value ? 1 : 0;
  }
}

/** The trace a score belongs to (exportRun): the named root run, else the only exported one. */
function traceOf(
  rootRunId: string | undefined,
  models: readonly TraceModel[] | undefined,
  fail: Fail,
): TraceModel | undefined {
  if (models === undefined) {
    if (rootRunId === undefined)
      throw fail("rootRunId", "is required: it names the run whose trace is scored");
    return undefined;
  }
  if (rootRunId !== undefined) {
    const model = models.find((m) => m.rootRunId === rootRunId);
    if (model === undefined) {
      throw fail(
        "rootRunId",
        `"${rootRunId}" is not a root run of the exported records (they hold ${models.map((m) => `"${m.rootRunId}"`).join(", ")})`,
      );
    }
    return model;
  }
  if (models.length !== 1) {
    throw fail(
      "rootRunId",
      `is required: the records hold ${models.length} root runs (${models.map((m) => `"${m.rootRunId}"`).join(", ")})`,
    );
  }
  return models[0];
}

/** The observation key of a target; checked against the exported trace when there is one. */
function observationKey(target: unknown, model: TraceModel | undefined, fail: Fail): string {
  const t = (typeof target === "object" && target !== null ? target : {}) as Record<string, unknown>;
  const text = (key: string) => {
    const v = t[key];
    if (typeof v !== "string" || v === "") throw fail(`observation.${key}`, "must be a non-empty string");
    return v;
  };
  let key: string;
  if (t.kind === "run") {
    key = `run:${text("runId")}`;
  } else if (t.kind === "tool") {
    key = `tool:${text("runId")}:${text("callId")}`;
  } else if (t.kind === "generation") {
    // One generation per model call: its attempts (retries, fallbacks) are inside it, so `attempt`
    // is checked but does not change the target.
    const attempt = t.attempt;
    if (attempt !== undefined && (typeof attempt !== "number" || !Number.isInteger(attempt) || attempt < 1)) {
      throw fail("observation.attempt", "must be a positive integer");
    }
    key = `model:${text("runId")}:${text("callId")}`;
  } else {
    throw fail("observation.kind", `must be "run", "generation" or "tool", got ${describe(t.kind)}`);
  }
  if (model !== undefined && !model.observations.some((obs) => obs.key === key)) {
    throw fail(
      "observation",
      `names no observation of the exported trace "${model.rootRunId}" (looked for ${key})`,
    );
  }
  return key;
}

/** The automatic BOOLEAN success score of a trace (see {@link LangfuseSuccessScoreOption}). */
export function successScore(
  model: TraceModel,
  option: LangfuseSuccessScoreOption,
): ResolvedScore | undefined {
  if (option === false) return undefined;
  const outcome = model.outcome;
  if (outcome === undefined || outcome.status === "interrupted") return undefined;
  const name: unknown =
    typeof option === "object" && option !== null ? (option.name ?? "success") : "success";
  if (typeof name !== "string" || name.trim() === "") {
    throw validationError("LangfuseClient.exportRun: successScore.name must be a non-empty string", {
      field: "successScore.name",
    });
  }
  return {
    rootRunId: model.rootRunId,
    name,
    value: outcome.status === "completed" ? 1 : 0,
    dataType: "BOOLEAN",
    comment: outcome.status === "completed" ? "run.completed" : `run.failed (${outcome.error.code})`,
    timestamp: model.endTs,
  };
}

/**
 * `score-create` envelopes. `scheme` picks the ids the scores point at: OTLP hex trace and span
 * ids (traces exported over OTLP) or the readable ingestion ids (`{rootRunId}`,
 * `{rootRunId}:{key}`). Default score ids are `{traceId}:score:{name}` or
 * `{observationId}:score:{name}`; envelope ids add a hash of the body, so an identical re-send is
 * de-duplicated while a changed value goes through as an update.
 *
 * @throws TinyAgentsError `validation` when two scores end up with the same id.
 */
export function scoreEnvelopes(
  scores: readonly ResolvedScore[],
  scheme: ScoreIdScheme,
  environment?: string,
): IngestionEnvelope[] {
  const seen = new Set<string>();
  return scores.map((score) => {
    const traceId = scheme === "otlp" ? otlpTraceId(score.rootRunId) : score.rootRunId;
    const observationId =
      score.observationKey === undefined
        ? undefined
        : scheme === "otlp"
          ? otlpSpanId(score.rootRunId, score.observationKey)
          : ingestionObservationId(score.rootRunId, score.observationKey);
    const id = score.id ?? `${observationId ?? traceId}:score:${score.name}`;
    if (seen.has(id)) {
      throw validationError(
        `LangfuseClient: two scores have the id "${id}" (the same name on the same trace or observation); give one an explicit id`,
        { field: "scores", id },
      );
    }
    seen.add(id);
    const body: JsonObject = { id, traceId };
    if (observationId !== undefined) body.observationId = observationId;
    body.name = score.name;
    body.value = score.value;
    body.dataType = score.dataType;
    if (score.comment !== undefined) body.comment = score.comment;
    if (score.metadata !== undefined) body.metadata = score.metadata;
    if (score.configId !== undefined) body.configId = score.configId;
    if (environment !== undefined) body.environment = environment;
    return {
      id: `${id}:${stableHexId(JSON.stringify(body), 16)}`,
      timestamp: new Date(score.timestamp).toISOString(),
      type: "score-create",
      body,
    };
  });
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
