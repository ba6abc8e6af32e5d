export { assistant, reasoningText, system, text, toolCall, toolResult, user } from "./constructors.js";
export {
  CONTENT_BLOCK_TYPES,
  type ContentBlock,
  type ImageBlock,
  type ImageSource,
  type JsonBlock,
  type ProviderExtensionBlock,
  type ReasoningBlock,
  type RedactedReasoningBlock,
  type TextBlock,
} from "./content-block.js";
export {
  type AssistantMessage,
  MESSAGE_ROLES,
  type Message,
  type Role,
  type SystemMessage,
  type ToolMessage,
  type UserMessage,
} from "./message.js";
export {
  validateContentBlock,
  validateMessage,
  validateMessages,
  validateToolCall,
  validateUsageShape,
} from "./validate.js";
