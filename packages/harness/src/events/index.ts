export type {
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  EventRecord,
  MiddlewareHook,
  ToolRecovery,
} from "./agent-event.js";
export { type EventListener, type EventScope, EventSink } from "./event-sink.js";
