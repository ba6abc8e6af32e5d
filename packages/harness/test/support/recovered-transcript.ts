/**
 * The transcript check of the crash suites (recover-crash, durable-crash): a run that was killed
 * and recovered ends with the transcript of an uninterrupted run, except that a `once` tool call
 * the kill cut answers "outcome unknown" (its result was never recorded, so it is not run again).
 */
import type { Message } from "@tinyagents/inference";
import { expect } from "vitest";

/**
 * Expect `got` (the recovered run's messages; `label` names the run in failures) to equal `want`
 * message by message, a cut call of the `once` tool `onceTool` excepted. Returns how many calls
 * were cut.
 */
export function expectRecoveredTranscript(
  got: readonly Message[] | undefined,
  want: readonly Message[],
  label: string,
  onceTool = "pay",
): number {
  expect(got, `${label} has a result`).toBeDefined();
  expect(got).toHaveLength(want.length);
  let unknown = 0;
  for (const [j, message] of (got ?? []).entries()) {
    const same = JSON.stringify(message) === JSON.stringify(want[j]);
    const cut =
      message.role === "tool" &&
      message.toolName === onceTool &&
      message.isError === true &&
      JSON.stringify(message.content).includes("is unknown: the process died during the call");
    if (cut) unknown++;
    expect(same || cut, `${label} message ${j}`).toBe(true);
  }
  return unknown;
}
