export type { InvalidToolArguments, ToolCall } from "./tool-call.js";
export type { ToolChoice } from "./tool-choice.js";
export type { ToolSchema } from "./tool-schema.js";
