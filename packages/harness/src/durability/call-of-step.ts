import type { DurableStepOptions } from "../contracts/durable-context.js";

/**
 * The model or tool call a journaled step of the loop runs, by the loop's step names:
 * `model:<callId>` (kind `model`), `tool:<callId>` (kind `tool`, an at-least-once call) and
 * `result:<callId>` (kind `result`, the step that runs a `once` call or answers "outcome
 * unknown"); undefined for any other step (intents, memory, an adapter's own steps).
 *
 * Engine adapters use it when a step's function actually runs (not on replay) to tell their
 * `ReplayReconcilingJournal` that the call runs again in this execution (`liveCall`).
 */
export function callOfStep(
  name: string,
  kind: DurableStepOptions["kind"],
): { kind: "model" | "tool"; callId: string } | undefined {
  const colon = name.indexOf(":");
  if (colon < 0) return undefined;
  const prefix = name.slice(0, colon);
  const callId = name.slice(colon + 1);
  if (kind === "model" && prefix === "model") return { kind: "model", callId };
  if ((kind === "tool" && prefix === "tool") || (kind === "result" && prefix === "result")) {
    return { kind: "tool", callId };
  }
  return undefined;
}
