/**
 * `@tinyagents/harness/handoff`: large tool results handed off by reference: the handoff store and
 * records, the read-back tool, the result cache. The root re-exports `largeResultHandoff`.
 */
export { largeResultHandoff, readHandoffTool } from "./handoff-middleware.js";
export {
  createHandoff,
  type HandoffFields,
  type HandoffRecord,
  HandoffStore,
  handoffMessage,
} from "./handoff-record.js";
export { type HandoffPage, ResultHandoffCache, type ResultHandoffOptions } from "./result-handoff-cache.js";
