// The middleware contracts live in contracts/ (they depend on nothing above them); re-exported here.
export type { HookContext, ToolLookup } from "../contracts/hook-context.js";
export type {
  Middleware,
  MiddlewareChanges,
  ModelCallNext,
  ToolCallNext,
  ToolProgress,
} from "../contracts/middleware.js";
