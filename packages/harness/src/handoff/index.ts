export { largeResultHandoff, readHandoffTool } from "./handoff-middleware.js";
export {
  createHandoff,
  type HandoffFields,
  type HandoffRecord,
  HandoffStore,
  handoffMessage,
} from "./handoff-record.js";
export { type HandoffPage, ResultHandoffCache, type ResultHandoffOptions } from "./result-handoff-cache.js";
