import { AgentHarness, runText, SubAgent, SubAgentTool } from "@tinyagents/harness";
import { calculatorTool, timeTools } from "@tinyagents/harness/builtin-tools";
import type { JsonObject } from "@tinyagents/inference";
import type { CliStore } from "../core/cli-store.js";
import { executeTurn, recordTraceDetails } from "../core/execute-turn.js";
import { DemoModel } from "../demo/demo-model.js";
import { StreamRenderer } from "../render/stream-renderer.js";
import { formatSummary } from "../render/summary.js";

/** Where demo output goes (a test passes a buffer). */
export interface DemoOutput {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
}

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Delay between streamed words (default 15 ms; 0 in tests). */
  delayMs?: number;
  /**
   * Journal the run here (what `tinyagents demo` does), so the printed run id works with
   * `tinyagents show`. Without a store the run is not recorded and the output says so.
   */
  store?: CliStore | undefined;
  /** Journal message content (default true); see `TurnOptions.captureContent`. */
  captureContent?: boolean;
}

/** The prompt of the showcase. */
export const DEMO_PROMPT =
  "What time is it in Tokyo, and what is (19 + 23) * 2? Ask the research agent to double-check the math.";

/** The JSON Schema the final answer must match (structured output). */
export const DEMO_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    answer: { type: "string" },
    tokyo_time: { type: "string" },
    result: { type: "number" },
    tools_used: { type: "array", items: { type: "string" } },
  },
  required: ["answer", "tokyo_time", "result", "tools_used"],
  additionalProperties: false,
};

/** Options of {@link demoAgent}. */
export interface DemoAgentOptions {
  /** Delay between streamed words (default 15 ms). */
  delayMs?: number;
  /** The main agent's instructions (default: the demo's own). */
  instructions?: string;
  /**
   * Journal the research sub-agent's trace details (with content when true): what a journaled
   * `tinyagents demo` does, so its runs can be shown and exported as tests. Default: not recorded.
   */
  traceDetails?: boolean;
}

/** The instructions of the demo's main agent. */
export const DEMO_INSTRUCTIONS =
  "You are a helpful assistant. Use tools; delegate checks to the research agent.";

/**
 * The agent `tinyagents demo` runs: the demo model, `current_time` and `calculator`, a
 * `research_agent` sub-agent (its own demo model and calculator) and structured output matching
 * {@link DEMO_SCHEMA}. A test exported from a demo run (`tinyagents test export`) rebuilds it here.
 */
export function demoAgent(options: DemoAgentOptions = {}): AgentHarness {
  const delay = options.delayMs === undefined ? {} : { delayMs: options.delayMs };
  const free = { pricing: { inputPerMillion: 0, outputPerMillion: 0 } };
  const research = new AgentHarness({ instructions: "You double-check arithmetic with the calculator." })
    .registerModel("demo", new DemoModel(delay), free)
    .registerTool(calculatorTool());
  if (options.traceDetails !== undefined) recordTraceDetails(research, options.traceDetails);
  const researchAgent = new SubAgent({
    name: "research",
    description: "A research sub-agent that double-checks math.",
    harness: research,
  });

  const harness = new AgentHarness({ instructions: options.instructions ?? DEMO_INSTRUCTIONS })
    .registerModel("demo", new DemoModel(delay), free)
    .withPolicy({
      responseFormat: { type: "json_schema", name: "demo_answer", schema: DEMO_SCHEMA, strict: true },
    });
  for (const t of timeTools()) harness.registerTool(t);
  harness.registerTool(calculatorTool());
  harness.registerTool(new SubAgentTool(researchAgent, { name: "research_agent" }));
  return harness;
}

/**
 * The offline showcase (`npm start`): a scripted multi-step run — the main agent calls
 * `current_time` and `calculator` in parallel, then consults a `research_agent` sub-agent (its own
 * harness and demo model, which calls `calculator` itself), then answers as JSON matching
 * {@link DEMO_SCHEMA} — streamed, then summarized with usage and cost rolled up across the
 * sub-agent. Every model here is the scripted {@link DemoModel}; the output says so. Returns the
 * exit code.
 */
export async function runDemo(
  prompt: string = DEMO_PROMPT,
  out: DemoOutput = process.stdout,
  options: DemoOptions = {},
): Promise<number> {
  const delay = options.delayMs === undefined ? {} : { delayMs: options.delayMs };
  out.write(
    "tinyagents demo — offline and SCRIPTED: every model here is the demo model (fixed keyword rules, not an LLM);\n" +
      'no API key or network needed. Real models: tinyagents run --model openai:gpt-4.1-mini "..." (see --help).\n\n',
  );
  out.write(`> ${prompt}\n\n`);

  const harness = demoAgent({
    ...delay,
    ...(options.store === undefined ? {} : { traceDetails: options.captureContent !== false }),
  });

  const renderer = new StreamRenderer(out);
  const result = await executeTurn({
    harness,
    store: options.store,
    prompt,
    command: "demo",
    modelSpec: "demo",
    captureContent: options.captureContent,
    onRecord: (record) => renderer.onRecord(record),
  });
  renderer.finish();
  const { run } = result;
  if (result.error !== undefined) {
    out.write(`\nrun failed [${result.error.code}]: ${result.error.message}\n`);
    return 1;
  }
  if (run.structured !== undefined) {
    out.write(
      `\nstructured output (checked against the "demo_answer" JSON Schema):\n${JSON.stringify(run.structured, null, 2)}\n`,
    );
  } else if (runText(run) === "") {
    out.write("\n(no final answer)\n");
  }
  out.write(`\n${formatSummary(run, result.wallMs, result.runId)}\n`);
  out.write(
    options.store === undefined
      ? "(this run was not journaled: no store)\n"
      : `\nIts timeline, from the journal: tinyagents show ${result.runId}\n`,
  );
  out.write(
    'Next: tinyagents --help · tinyagents run "what time is it in Tokyo?" --tools time · docs/getting-started.md\n',
  );
  return 0;
}
