export * from "./library/index.js";
export type {
  HookContext,
  Middleware,
  MiddlewareChanges,
  ModelCallNext,
  ToolCallNext,
  ToolLookup,
  ToolProgress,
} from "./middleware.js";
export { MiddlewareStack } from "./middleware-stack.js";
