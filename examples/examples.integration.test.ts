import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every example runs offline, as a user would run it (`npx tsx examples/<name>.ts`), with no API
// key, no TINYAGENTS_MODEL and no local model server in the environment.
const root = fileURLToPath(new URL("..", import.meta.url));

function runExample(name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    LOCAL_BASE_URL: "http://127.0.0.1:1/v1", // nothing listens on port 1: the probe example skips
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", `examples/${name}.ts`],
      { cwd: root, env, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

const EXPECTED: Record<string, (string | RegExp)[]> = {
  "hello-agent": ["[offline:", "Hello! I am a tiny agent.", /model calls: 1/],
  tools: ["tool get_weather:", '"result":69.8', "tool current_time:", "tool calls: 3"],
  streaming: [
    '[tool lookup_population {"city":"Lisbon"}]',
    "Lisbon has about 0.55 million",
    "[completed: 2 model calls",
  ],
  "structured-output": ['structured: {"city":"Paris","country":"France","population_millions":2.1}'],
  subagents: [
    "Summary: Lisbon's metro area",
    /child researcher \(researcher-d1-\S+, depth 1\): 150 tokens/,
    /tree total: 750 tokens/,
  ],
  middleware: ["[REDACTED:api_key]", "provider attempts: 2", "Got it."],
  memory: ["run 1: Nice to meet you, Ada!", "run 2: Your name is Ada.", "started with 2 messages of history"],
  steering: ["status: interrupted", "resumed: All steps done. (model calls: 3, tool calls: 2)"],
  observability: [
    "first: run.started, last: run.completed",
    /spans: .*execute_tool search.*invoke_agent docs-agent/,
    "status: completed",
  ],
  "mcp-tools": [
    "get_annotated_message <- get-annotated-message",
    "The sum of 19 and 23 is 42.",
    "says the MCP server",
  ],
  "graph-nodes": [
    "[research in newsroom-run-1] approval.requested",
    "[research in newsroom-run-1] run.resumed",
    "headline: Revenue up 12% in Q3 on strong exports.",
    "models: research=big (registry_default), write=big (state_reuse)",
    "graph run totals: 3 model calls, 1 tool call, 450 tokens over 2 node calls",
  ],
  "local-model-probe": ["skipped: no server at http://127.0.0.1:1/v1"],
  "durable-restate": [
    "is waiting for: approval:release-42/call_deploy",
    /killed worker \d \(SIGKILL\) while the run waits/,
    "deploy v2 to production (key release-42:call_deploy)",
    "run completed on worker",
    "finished on a different worker: true",
  ],
  "from-ai-sdk": [
    'tool get_weather: {"city":"Lisbon"}',
    "Lisbon is sunny at 21 °C.",
    "provider: google, model calls: 2, tokens: 169",
  ],
};

describe("examples (offline)", () => {
  it.concurrent.each(Object.keys(EXPECTED))("%s", { timeout: 60_000 }, async (name) => {
    const { code, stdout, stderr } = await runExample(name);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    for (const expected of EXPECTED[name] ?? []) {
      if (typeof expected === "string") expect(stdout).toContain(expected);
      else expect(stdout).toMatch(expected);
    }
  });
});
