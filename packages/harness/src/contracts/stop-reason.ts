/**
 * Why a run ended. Finished runs: `completed` (a final answer), `stop_with_final` (a control
 * request supplied it), `interrupted` (paused, see `run.paused`), `limit:model_calls` /
 * `limit:tool_calls` (a cap stopped it with a partial answer, `onCap: "stopWithPartial"`).
 * Failed runs (the error says more): `timeout` (a deadline, or a timed-out call the run could not
 * recover from), `cancelled` (the caller's signal, a consumer that stopped reading),
 * `limit:model_calls` / `limit:tool_calls` / `limit:retries` (a cap failed it), `abandoned`
 * (its process died and the run was reaped or could not be recovered), `failed` (anything else).
 */
export type StopReason =
  | "completed"
  | "stop_with_final"
  | "interrupted"
  | "limit:model_calls"
  | "limit:tool_calls"
  | "limit:retries"
  | "timeout"
  | "cancelled"
  | "abandoned"
  | "failed";
