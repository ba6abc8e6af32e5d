export type { AgentRun, RecordsLost, RunStep, StopReason } from "./agent-run.js";
export { runText } from "./agent-run.js";
export { failedModelName } from "./failed-model.js";
export type { VolatileContext } from "./loop-session.js";
export type { RunOutcome } from "./run-loop.js";
