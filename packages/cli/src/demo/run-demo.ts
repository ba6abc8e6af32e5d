import { AgentHarness } from "@tinyagents/harness";
import { addTool } from "./add-tool.js";
import { DemoModel } from "./demo-model.js";

/** Where demo output goes (a test passes a buffer). */
export interface DemoOutput {
  write(chunk: string): void;
}

/**
 * Run the offline demo: a streaming agent run with one tool call, printed as it happens,
 * then a summary (model calls, tool calls, tokens, wall time, run id). Returns the exit code.
 */
export async function runDemo(prompt: string, out: DemoOutput = process.stdout): Promise<number> {
  out.write(
    "tinyagents demo — offline: no API key or server needed; the model is a scripted demo model, not an LLM.\n\n",
  );
  out.write(`> ${prompt}\n\n`);
  const harness = new AgentHarness({
    instructions: "You are a helpful assistant. Use tools for arithmetic.",
  });
  harness.registerModel("demo", new DemoModel(), { pricing: { inputPerMillion: 0, outputPerMillion: 0 } });
  harness.registerTool(addTool);
  const started = Date.now();
  const toolStarts = new Map<string, number>();
  for await (const item of harness.invokeStreamingDefault(undefined, prompt)) {
    if (item.type === "event") {
      const { event, ts } = item.record;
      if (event.type === "model.delta" && event.delta.type === "text_delta") out.write(event.delta.text);
      if (event.type === "model.completed" && event.toolCalls > 0) out.write("\n");
      if (event.type === "tool.started") {
        toolStarts.set(event.callId, ts);
        out.write(`  -> ${event.toolName}(${JSON.stringify(event.arguments)})`);
      }
      if (event.type === "tool.completed")
        out.write(` ${event.isError ? "failed" : "ok"} in ${event.durationMs} ms\n`);
      continue;
    }
    out.write("\n\n");
    if (item.type === "failed") {
      out.write(`run failed [${item.error.code}]: ${item.error.message}\n`);
      return 1;
    }
    const { run } = item;
    const u = run.usage.usage;
    out.write(
      [
        `model calls: ${run.modelCalls}   tool calls: ${run.toolCalls}`,
        `tokens: ${u.inputTokens} in (${u.cacheReadTokens} cached), ${u.outputTokens} out (${u.reasoningTokens} reasoning)`,
        `cost: $${run.cost.total.toFixed(6)}   wall time: ${Date.now() - started} ms   run id: ${run.runId}`,
      ].join("\n") + "\n",
    );
  }
  return 0;
}
