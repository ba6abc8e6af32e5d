export type {
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  EventRecord,
  MiddlewareHook,
  ModelDeltaEvent,
  ToolRecovery,
} from "../contracts/agent-event.js";
export type {
  ModelRequestDetails,
  ModelResponseDetails,
  ToolResultDetails,
} from "../contracts/trace-details.js";
export { type EventListener, type EventScope, EventSink } from "./event-sink.js";
export { isModelDeltaEvent, modelDeltaEvent } from "./model-delta-event.js";
