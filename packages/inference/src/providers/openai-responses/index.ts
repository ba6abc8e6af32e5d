export {
  decodeReasoningSignature,
  encodeReasoningSignature,
  type FollowingItem,
  isResponsesReasoningSignature,
  type ResponsesReasoningState,
} from "../../message/reasoning-signature.js";
export { type InputMappingContext, mapInput } from "./map-input.js";
export {
  INCLUDE_ENCRYPTED_REASONING,
  type ResponsesRequestContext,
  toResponsesRequest,
} from "./map-request.js";
export { parseResponsesBody, type ResponsesParseContext } from "./parse-response.js";
export { OpenAiResponsesModel } from "./responses-model.js";
export {
  DEFAULT_RESPONSES_BASE_URL,
  type OpenAiResponsesModelOptions,
} from "./responses-options.js";
export { ResponsesStreamParser } from "./stream-parser.js";
export { normalizeResponsesUsage, responsesFinishReason } from "./usage.js";
