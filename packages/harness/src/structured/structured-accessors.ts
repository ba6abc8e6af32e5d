import type { StandardSchemaV1 } from "@standard-schema/spec";
import { TinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../contracts/agent-run.js";
import { formatStandardIssues } from "../tool/standard-issues.js";

/**
 * The structured answer of `run` (`run.structured`), typed as `T` by the caller. Throws
 * `structured_output` when the run has none (no response format, or it stopped before answering:
 * `details.stopReason` says why).
 */
export function structuredResponse<T = unknown>(
  run: Pick<AgentRun, "structured" | "stopReason" | "runId">,
): T {
  if (run.structured === undefined) {
    throw new TinyAgentsError(
      "structured_output",
      `run "${run.runId}" has no structured answer (it ended with stopReason "${run.stopReason}"); ` +
        "ask for one with harness.withResponseFormat(schema) or RunPolicy.responseFormat",
      { details: { runId: run.runId, stopReason: run.stopReason } },
    );
  }
  return run.structured as T;
}

/**
 * Validate `run.structured` with `schema` (any Standard Schema) and return its typed output —
 * for runs loaded from a journal or store, or to read a JSON answer as a richer type. Throws
 * `structured_output` with the issues when it does not validate (or there is no answer).
 */
export async function parseStructured<S extends StandardSchemaV1>(
  run: Pick<AgentRun, "structured" | "stopReason" | "runId">,
  schema: S,
): Promise<StandardSchemaV1.InferOutput<S>> {
  const value = structuredResponse(run);
  const result = await schema["~standard"].validate(value);
  if (result.issues !== undefined) {
    const issues = formatStandardIssues(result.issues);
    throw new TinyAgentsError(
      "structured_output",
      `run "${run.runId}": the structured answer does not match the schema: ${issues.join("; ")}`,
      { details: { runId: run.runId, issues } },
    );
  }
  return result.value;
}
