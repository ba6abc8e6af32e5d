import { afterEach, describe, expect, it } from "vitest";
import { LangfuseClient } from "../langfuse/langfuse-client.js";
import {
  acceptAll,
  closeServers,
  type Received,
  type Reply,
  serve,
} from "../langfuse/langfuse-server.fixture.js";
import { agentPerCase } from "./eval.fixture.js";
import { evaluate } from "./evaluate.js";
import { exactMatch } from "./scorers/exact-match.js";

afterEach(closeServers);

const cases = [
  { id: "paris", input: "Capital of France?", expected: "Paris", tags: ["europe"] },
  { id: "oslo", input: "Capital of Norway?", expected: "Oslo" },
];
const agent = agentPerCase({ paris: ["Paris"], oslo: ["Bergen"] });

/** A Langfuse stand-in for the dataset API and the batch ingestion endpoint. */
function langfuseLike(request: Received): Reply {
  if (request.path === "/api/public/ingestion") return acceptAll(request);
  if (request.path === "/api/public/v2/datasets") {
    return { status: 200, body: JSON.stringify({ id: "ds-1", ...JSON.parse(request.body) }) };
  }
  return { status: 200, body: JSON.stringify({ id: `x-${request.path}` }) };
}

const bodiesAt = (requests: Received[], path: string) =>
  requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

describe("evaluate({ langfuse }): eval runs as Langfuse dataset runs", () => {
  it("upserts the dataset and its items, exports each trial's trace with its scores, and links it to its item", async () => {
    const server = await serve(langfuseLike);
    const client = LangfuseClient.direct(server.url, "pk-lf-eval", "sk-lf-eval", { transport: "ingestion" });
    const result = await evaluate({
      agent,
      dataset: { name: "capitals", cases },
      scorers: [exactMatch()],
      evalRunId: "eval-1",
      concurrency: 1,
      langfuse: { client, runDescription: "nightly" },
    });

    // The dataset and its items come first, with stable ids.
    expect(server.requests[0]?.path).toBe("/api/public/v2/datasets");
    expect(bodiesAt(server.requests, "/api/public/v2/datasets")).toEqual([
      { name: "capitals", metadata: { source: "tinyagents evals" } },
    ]);
    expect(bodiesAt(server.requests, "/api/public/dataset-items")).toEqual([
      {
        datasetName: "capitals",
        id: "capitals:paris",
        input: "Capital of France?",
        expectedOutput: "Paris",
        metadata: { caseId: "paris", tags: ["europe"] },
      },
      {
        datasetName: "capitals",
        id: "capitals:oslo",
        input: "Capital of Norway?",
        expectedOutput: "Oslo",
        metadata: { caseId: "oslo" },
      },
    ]);
    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Basic ${btoa("pk-lf-eval:sk-lf-eval")}`);
    }

    // One trace per trial, tagged with the eval, with a NUMERIC score per scorer and a BOOLEAN passed.
    const envelopes = bodiesAt(server.requests, "/api/public/ingestion").flatMap(
      (b) => b.batch as { type: string; body: Record<string, unknown> }[],
    );
    const traces = envelopes.filter((e) => e.type === "trace-create").map((e) => e.body);
    expect(traces.map((t) => [t.id, t.name, t.tags])).toEqual([
      ["eval-1-c1-r1", "eval capitals / paris", ["eval", "eval:eval-1"]],
      ["eval-1-c2-r1", "eval capitals / oslo", ["eval", "eval:eval-1"]],
    ]);
    const scores = envelopes.filter((e) => e.type === "score-create").map((e) => e.body);
    expect(scores.map((s) => [s.traceId, s.name, s.value, s.dataType])).toEqual([
      ["eval-1-c1-r1", "exact", 1, "NUMERIC"],
      ["eval-1-c1-r1", "passed", 1, "BOOLEAN"],
      ["eval-1-c2-r1", "exact", 0, "NUMERIC"],
      ["eval-1-c2-r1", "passed", 0, "BOOLEAN"],
    ]);
    expect(scores[2]?.comment).toBe('expected "Oslo", got "Bergen"');

    // Each trace linked to its case's item in the run named after the eval run.
    expect(bodiesAt(server.requests, "/api/public/dataset-run-items")).toEqual([
      {
        runName: "eval-1",
        runDescription: "nightly",
        metadata: { evalRunId: "eval-1", runId: "eval-1-c1-r1", trial: 0, passed: true },
        datasetItemId: "capitals:paris",
        traceId: "eval-1-c1-r1",
      },
      {
        runName: "eval-1",
        runDescription: "nightly",
        metadata: { evalRunId: "eval-1", runId: "eval-1-c2-r1", trial: 0, passed: false },
        datasetItemId: "capitals:oslo",
        traceId: "eval-1-c2-r1",
      },
    ]);
    expect(result.langfuse).toEqual({
      datasetName: "capitals",
      runName: "eval-1",
      items: 2,
      traces: 2,
      scores: 4,
      runItems: 2,
      errors: [],
    });
  });

  it("links OTLP traces by their OTLP trace id", async () => {
    const server = await serve((request) =>
      request.path === "/api/public/otel/v1/traces" ? { status: 200 } : langfuseLike(request),
    );
    const client = LangfuseClient.direct(server.url, "pk-lf-eval", "sk-lf-eval");
    const result = await evaluate({
      agent,
      dataset: { name: "capitals", cases: [cases[0] as (typeof cases)[number]] },
      scorers: [exactMatch()],
      evalRunId: "eval-2",
      langfuse: { client, runName: "candidate" },
    });
    const spans = bodiesAt(server.requests, "/api/public/otel/v1/traces").flatMap((b) =>
      b.resourceSpans.flatMap((r: { scopeSpans: { spans: { traceId: string }[] }[] }) =>
        r.scopeSpans.flatMap((s) => s.spans),
      ),
    );
    const [link] = bodiesAt(server.requests, "/api/public/dataset-run-items");
    expect(link).toMatchObject({ runName: "candidate", datasetItemId: "capitals:paris" });
    expect(link.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.every((span: { traceId: string }) => span.traceId === link.traceId)).toBe(true);
    expect(result.langfuse?.errors).toEqual([]);
  });

  it("a Langfuse failure is reported in result.langfuse and never fails the eval", async () => {
    const server = await serve(() => ({ status: 500, body: '{"message":"down"}' }));
    const client = LangfuseClient.direct(server.url, "pk-lf-eval", "sk-lf-eval", { transport: "ingestion" });
    const result = await evaluate({
      agent,
      dataset: { name: "capitals", cases },
      scorers: [exactMatch()],
      langfuse: { client },
    });
    expect(result.status).toBe("completed");
    expect(result.trials.map((t) => t.passed)).toEqual([true, false]);
    expect(server.requests.map((r) => r.path)).toEqual(["/api/public/v2/datasets"]);
    expect(result.langfuse).toMatchObject({ items: 0, traces: 0, runItems: 0 });
    expect(result.langfuse?.errors).toEqual([expect.stringMatching(/^dataset: provider: .*HTTP 500/)]);
    expect(JSON.stringify(result)).not.toContain("sk-lf-eval");
  });

  it("a proxy client cannot push datasets: a clear error in the summary", async () => {
    const client = LangfuseClient.proxy("http://127.0.0.1:9", "token-1");
    const result = await evaluate({
      agent,
      dataset: { name: "capitals", cases },
      scorers: [exactMatch()],
      langfuse: { client },
    });
    expect(result.langfuse?.errors).toEqual([expect.stringContaining("needs a direct client")]);
  });
});
