// The physical floor: the scripted model and tool driven by the simplest possible loop, no
// framework, no validation, no events. Every other adapter's figures are divided by these.
import { DELTA, echoedValue, nextStep, PROMPT, TOOL_NAME, USAGE, yieldTurn } from "../lib/script.mjs";

export const info = { name: "hand-written" };

/** The scripted model as a plain async function (also the storage floors' model). */
export function scriptedModel(steps, yieldEachCall, counters) {
  return async function invoke(messages) {
    counters.model++;
    if (yieldEachCall) await yieldTurn();
    const last = messages[messages.length - 1];
    const next = nextStep(steps, last.role === "tool" ? echoedValue(last.content) : 0);
    if (next.call === undefined)
      return { role: "assistant", content: next.text, toolCalls: [], usage: USAGE };
    const call = { id: `call_${next.call}`, name: TOOL_NAME, arguments: { n: next.call } };
    return { role: "assistant", content: "", toolCalls: [call], usage: USAGE };
  };
}

/** The final answer of a finished run (the transcript it returned). */
export function loopText(messages) {
  return messages[messages.length - 1].content;
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const invoke = scriptedModel(steps, yieldEachCall, counters);
  const tools = {
    [TOOL_NAME]: async ({ n }) => {
      counters.tool++;
      return String(n);
    },
  };
  return async function run() {
    const messages = [{ role: "user", content: PROMPT }];
    for (;;) {
      const reply = await invoke(messages);
      messages.push(reply);
      if (reply.toolCalls.length === 0) return messages;
      for (const call of reply.toolCalls) {
        const output = await tools[call.name](call.arguments);
        messages.push({ role: "tool", toolCallId: call.id, content: output });
      }
    }
  };
}

export function createStream({ deltas, counters }) {
  async function* stream() {
    counters.model++;
    for (let i = 0; i < deltas; i++) yield DELTA;
  }
  return async function run() {
    let received = 0;
    let text = "";
    for await (const delta of stream()) {
      received++;
      text += delta;
    }
    return { received, text };
  };
}
