import type { MessageDelta } from "@tinyagents/inference";
import type { AgentEvent, ModelDeltaEvent } from "../contracts/agent-event.js";

/**
 * The event a streamed model delta is emitted as: `model.` + the delta's own kind, with the
 * delta's fields flat on the event (`model.text_delta` carries `text`). One literal per kind so
 * each emission site builds one stable shape (the streaming hot path).
 */
export function modelDeltaEvent(callId: string, delta: MessageDelta): ModelDeltaEvent {
  switch (delta.type) {
    case "text_delta":
      return { type: "model.text_delta", callId, text: delta.text };
    case "reasoning_delta":
      return delta.signature === undefined
        ? { type: "model.reasoning_delta", callId, text: delta.text }
        : { type: "model.reasoning_delta", callId, text: delta.text, signature: delta.signature };
    case "redacted_reasoning":
      return { type: "model.redacted_reasoning", callId, data: delta.data };
    case "tool_call_delta": {
      const event: AgentEventOfToolCall = { type: "model.tool_call_delta", callId, index: delta.index };
      if (delta.id !== undefined) event.id = delta.id;
      if (delta.name !== undefined) event.name = delta.name;
      if (delta.argumentsDelta !== undefined) event.argumentsDelta = delta.argumentsDelta;
      return event;
    }
  }
}

type AgentEventOfToolCall = Extract<AgentEvent, { type: "model.tool_call_delta" }>;

/** True for the four kinds of streamed model output (`model.text_delta`, ...). */
export function isModelDeltaEvent(event: AgentEvent): event is ModelDeltaEvent {
  const t = event.type;
  return (
    t === "model.text_delta" ||
    t === "model.reasoning_delta" ||
    t === "model.tool_call_delta" ||
    t === "model.redacted_reasoning"
  );
}
