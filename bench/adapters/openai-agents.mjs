// OpenAI Agents JS (0.20, the newest the registry serves; its `openai` 7 dependency declares
// engines node >= 22 but runs on Node 20 for everything used here — the quick run checks it): a
// `Model` implementation (getResponse / getStreamedResponse, like the SDK's own test FakeModel),
// a zod `tool()`, and `Runner.run` with `maxTurns: S + 1`. Tracing is disabled the way the SDK's
// own integration tests do it (its default exporter uploads traces to OpenAI).
import { Agent, Runner, tool, Usage } from "@openai/agents";
import { z } from "zod";
import {
  DELTA,
  echoedValue,
  nextStep,
  PROMPT,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  USAGE,
  yieldTurn,
} from "../lib/script.mjs";

export const info = { name: "openai-agents" };

/** The value the last tool result in the input carried (0 before any tool ran). */
function lastEchoed(input) {
  if (typeof input === "string") return 0;
  const last = input[input.length - 1];
  if (last.type !== "function_call_result") return 0;
  const output = last.output;
  return echoedValue(typeof output === "string" ? output : output.text);
}

function message(text) {
  return {
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text }],
  };
}

class ScriptedModel {
  constructor(script) {
    this.script = script;
  }

  async getResponse(request) {
    const { steps, yieldEachCall, counters } = this.script;
    counters.model++;
    if (yieldEachCall) await yieldTurn();
    const next = nextStep(steps, lastEchoed(request.input));
    const output =
      next.call === undefined
        ? [message(next.text)]
        : [
            {
              type: "function_call",
              callId: `call_${next.call}`,
              name: TOOL_NAME,
              status: "completed",
              arguments: JSON.stringify({ n: next.call }),
            },
          ];
    return { usage: new Usage(USAGE), output };
  }

  async *getStreamedResponse() {
    const { deltas, counters } = this.script;
    counters.model++;
    yield { type: "response_started" };
    for (let i = 0; i < deltas; i++) yield { type: "output_text_delta", delta: DELTA };
    yield {
      type: "response_done",
      response: { id: "resp_1", usage: { ...USAGE, requests: 1 }, output: [message(DELTA.repeat(deltas))] },
    };
  }
}

function echoTool(counters) {
  return tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      counters.tool++;
      return String(n);
    },
  });
}

function agentFor(script) {
  return new Agent({ name: "bench", model: new ScriptedModel(script), tools: [echoTool(script.counters)] });
}

/** The final answer of a finished run (a RunResult). */
export function loopText(result) {
  return result.finalOutput;
}

export function createLoop({ steps, yieldEachCall = false, counters }) {
  const agent = agentFor({ steps, yieldEachCall, counters });
  const runner = new Runner({ tracingDisabled: true });
  const options = { maxTurns: steps + 1 };
  return function run() {
    return runner.run(agent, PROMPT, options);
  };
}

export function createStream({ deltas, counters }) {
  const agent = agentFor({ deltas, counters });
  const runner = new Runner({ tracingDisabled: true });
  return async function run() {
    const result = await runner.run(agent, PROMPT, { stream: true });
    let received = 0;
    for await (const event of result) {
      if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta") received++;
    }
    await result.completed;
    return { received, text: result.finalOutput };
  };
}
