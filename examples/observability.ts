/**
 * Observability: every event of a run goes to a JSONL journal file (secrets redacted) and to
 * OpenTelemetry spans (GenAI conventions); projections give the run's status, usage and timing.
 * Run: npx tsx examples/observability.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { attachObservability, createAgent, EventSink, formatCost, tool } from "@tinyagents/harness";
import { JsonlSink } from "@tinyagents/harness/node";
import { createOtelListener } from "@tinyagents/harness/otel";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { usage } from "@tinyagents/inference";
import { pickModel } from "./support/pick-model.js";

const dir = mkdtempSync(join(tmpdir(), "tinyagents-obs-"));
const exporter = new InMemorySpanExporter(); // in production: an OTLP exporter
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
try {
  const search = tool({
    name: "search",
    description: "Search the docs",
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    execute: () => "tinyagents journals every event",
  });
  const { model } = pickModel(
    () =>
      new ScriptedModel(
        [{ toolCalls: [{ name: "search", arguments: { q: "journal" } }] }, "It journals every event."],
        {
          usage: usage({ inputTokens: 90, outputTokens: 12 }),
        },
      ),
  );
  const agent = createAgent({
    model,
    pricing: { inputPerMillion: 0.4, outputPerMillion: 1.6 },
    tools: [search],
  });

  const runId = "obs-run-1";
  const events = new EventSink(runId);
  const journalFile = join(dir, "events.jsonl");
  const obs = attachObservability(events, { sinks: [new JsonlSink(journalFile)] });
  events.subscribe(createOtelListener(provider.getTracer("example"), { agentName: "docs-agent" }));
  await agent.run("What does tinyagents journal?", { runId, events });
  await obs.close();

  const lines = readFileSync(journalFile, "utf8").trim().split("\n");
  const types = lines.map((line) => (JSON.parse(line) as { event: { type: string } }).event.type);
  console.log(`journal: ${lines.length} observations in ${journalFile.replace(dir, "<tmp>")}`);
  console.log(`first: ${types[0]}, last: ${types.at(-1)}`);
  console.log(
    `spans: ${exporter
      .getFinishedSpans()
      .map((s) => s.name)
      .join(", ")}`,
  );
  const status = obs.projections.status.get(runId);
  console.log(
    `status: ${status?.status}, model calls ${status?.modelCalls}, cost ${status === undefined ? "unknown" : formatCost(status.cost)}`,
  );
} finally {
  await provider.shutdown();
  rmSync(dir, { recursive: true, force: true });
}
