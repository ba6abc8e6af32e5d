import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  TinyAgentsError,
  validateMessages,
  validationError,
} from "@tinyagents/inference";
import type { AgentInput } from "../runtime/agent-input.js";
import type { EvalCase, EvalDataset, ExpectedToolCall, ExpectedTrajectory } from "./eval-case.js";

/** Where cases came from, for error messages: a file name and, for JSONL, each case's line. */
export interface DatasetSource {
  /** Dataset name (default `"dataset"`, or the file name when loaded from a file). */
  name?: string;
  /** A file name shown in errors. */
  file?: string;
  /** The 1-based line of each case (JSONL), by case index. */
  lines?: readonly number[];
}

const CASE_KEYS = new Set([
  "id",
  "input",
  "expected",
  "expectedStructured",
  "expectedTrajectory",
  "metadata",
  "tags",
]);
const TRAJECTORY_KEYS = new Set(["called", "notCalled", "order", "modelCalls"]);

/**
 * Check a dataset given inline or parsed from a file and return it normalized: either an array of
 * cases or `{ name, cases }`. A case without an `id` gets `case-<n>` (1-based). Unknown fields are
 * refused (a misspelt `expeted` would otherwise be ignored silently).
 *
 * @throws TinyAgentsError `validation` naming the dataset, the case (index, id and line) and the
 *   field, with what to write instead; `details` carry `case`, `caseId` and `field`.
 */
export function validateDataset(input: unknown, source: DatasetSource = {}): EvalDataset {
  let name = source.name ?? "dataset";
  let cases: unknown = input;
  if (isJsonObject(input as JsonValue) && !Array.isArray(input)) {
    const object = input as JsonObject;
    if (object.name !== undefined) {
      if (typeof object.name !== "string" || object.name.trim() === "") {
        throw datasetError(name, source, "the dataset's name must be a non-empty string", { field: "name" });
      }
      name = object.name;
    }
    cases = object.cases;
  }
  if (!Array.isArray(cases)) {
    throw datasetError(name, source, 'must be an array of cases or { "name": ..., "cases": [...] }', {
      field: "cases",
    });
  }
  if (cases.length === 0) {
    throw datasetError(name, source, 'has no cases: add at least one { "input": ... }', { field: "cases" });
  }
  const seen = new Map<string, number>();
  const checked = cases.map((raw, index) => {
    const evalCase = validateCase(raw, index, name, source);
    const previous = seen.get(evalCase.id);
    if (previous !== undefined) {
      throw caseError(
        name,
        source,
        index,
        evalCase.id,
        "id",
        `repeats the id of case ${previous + 1}; ids must be unique`,
      );
    }
    seen.set(evalCase.id, index);
    return evalCase;
  });
  return { name, cases: checked };
}

function validateCase(raw: unknown, index: number, dataset: string, source: DatasetSource): EvalCase {
  if (!isJsonObject(raw as JsonValue)) {
    throw caseError(dataset, source, index, undefined, "", 'must be an object such as { "input": "..." }');
  }
  const value = raw as JsonObject;
  const id = value.id === undefined ? `case-${index + 1}` : value.id;
  const fail = (field: string, message: string) =>
    caseError(dataset, source, index, typeof id === "string" ? id : undefined, field, message);
  if (typeof id !== "string" || id.trim() === "") throw fail("id", "must be a non-empty string");
  for (const key of Object.keys(value)) {
    if (!CASE_KEYS.has(key)) throw fail(key, `is not a case field (fields: ${[...CASE_KEYS].join(", ")})`);
  }
  const evalCase: EvalCase = { id, input: checkInput(value.input, fail) };
  if (value.expected !== undefined) {
    if (typeof value.expected !== "string")
      throw fail("expected", "must be a string (the expected final text)");
    evalCase.expected = value.expected;
  }
  if (value.expectedStructured !== undefined) evalCase.expectedStructured = value.expectedStructured;
  if (value.expectedTrajectory !== undefined) {
    evalCase.expectedTrajectory = checkTrajectory(value.expectedTrajectory, fail);
  }
  if (value.metadata !== undefined) {
    if (!isJsonObject(value.metadata)) throw fail("metadata", "must be a JSON object");
    evalCase.metadata = value.metadata;
  }
  if (value.tags !== undefined) {
    if (!Array.isArray(value.tags) || value.tags.some((tag) => typeof tag !== "string")) {
      throw fail("tags", "must be an array of strings");
    }
    evalCase.tags = value.tags as string[];
  }
  return evalCase;
}

type Fail = (field: string, message: string) => TinyAgentsError;

function checkInput(input: JsonValue | undefined, fail: Fail): AgentInput {
  if (typeof input === "string") {
    if (input.trim() === "") throw fail("input", "is empty; give the prompt text or messages");
    return input;
  }
  if (input === undefined)
    throw fail("input", 'is required: a prompt string or messages ([{ "role": "user", ... }])');
  const messages = Array.isArray(input) ? input : [input];
  try {
    validateMessages(messages, "input");
  } catch (error) {
    const detail = TinyAgentsError.isInstance(error) ? error.message : String(error);
    throw fail("input", `is not a prompt string or valid messages: ${detail}`);
  }
  return input as unknown as AgentInput;
}

function checkTrajectory(value: JsonValue, fail: Fail): ExpectedTrajectory {
  if (!isJsonObject(value)) {
    throw fail(
      "expectedTrajectory",
      'must be an object such as { "called": ["search"], "notCalled": ["delete"] }',
    );
  }
  for (const key of Object.keys(value)) {
    if (!TRAJECTORY_KEYS.has(key)) {
      throw fail(
        `expectedTrajectory.${key}`,
        `is not a trajectory field (fields: ${[...TRAJECTORY_KEYS].join(", ")})`,
      );
    }
  }
  const trajectory: ExpectedTrajectory = {};
  if (value.called !== undefined) {
    if (!Array.isArray(value.called))
      throw fail("expectedTrajectory.called", "must be an array of tool names or { name, arguments }");
    trajectory.called = value.called.map((item, i) =>
      checkCall(item, `expectedTrajectory.called[${i}]`, fail),
    );
  }
  for (const key of ["notCalled", "order"] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.some((name) => typeof name !== "string" || name === "")) {
      throw fail(`expectedTrajectory.${key}`, "must be an array of non-empty tool names");
    }
    trajectory[key] = list as string[];
  }
  if (value.modelCalls !== undefined) {
    if (typeof value.modelCalls !== "number" || !Number.isInteger(value.modelCalls) || value.modelCalls < 0) {
      throw fail("expectedTrajectory.modelCalls", "must be a non-negative integer");
    }
    trajectory.modelCalls = value.modelCalls;
  }
  return trajectory;
}

function checkCall(item: JsonValue, field: string, fail: Fail): string | ExpectedToolCall {
  if (typeof item === "string" && item !== "") return item;
  if (isJsonObject(item) && typeof item.name === "string" && item.name !== "") {
    if (item.arguments !== undefined && !isJsonObject(item.arguments)) {
      throw fail(`${field}.arguments`, "must be a JSON object (matched partially)");
    }
    return item.arguments === undefined
      ? { name: item.name }
      : { name: item.name, arguments: item.arguments };
  }
  throw fail(field, 'must be a tool name or { "name": "...", "arguments": { ... } }');
}

function datasetError(
  name: string,
  source: DatasetSource,
  message: string,
  details: JsonObject,
): TinyAgentsError {
  const where = source.file === undefined ? `dataset "${name}"` : `dataset "${name}" (${source.file})`;
  return validationError(`${where} ${message}`, { dataset: name, ...details });
}

function caseError(
  dataset: string,
  source: DatasetSource,
  index: number,
  id: string | undefined,
  field: string,
  message: string,
): TinyAgentsError {
  const line = source.lines?.[index];
  const where = [
    `case ${index + 1}`,
    id === undefined ? undefined : `"${id}"`,
    line === undefined ? undefined : `line ${line}`,
  ].filter((part) => part !== undefined);
  const file = source.file === undefined ? "" : ` (${source.file})`;
  const subject = field === "" ? "" : ` field "${field}"`;
  const details: JsonObject = { dataset, case: index + 1, field: field === "" ? "case" : field };
  if (id !== undefined) details.caseId = id;
  if (line !== undefined) details.line = line;
  return validationError(`dataset "${dataset}"${file}, ${where.join(" ")}:${subject} ${message}`, details);
}
