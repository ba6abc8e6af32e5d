export type { HookContext, Middleware, ModelCallNext, ToolCallNext, ToolProgress } from "./middleware.js";
export { MiddlewareStack } from "./middleware-stack.js";
