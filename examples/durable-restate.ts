/**
 * Durable runs on Restate: a run that waits for a human approval survives the death of its
 * worker and finishes on another one.
 *
 * This file is both the demo and its worker. The demo starts a local Restate server from
 * node_modules (`@restatedev/restate-server`, on 127.0.0.1, temp data dir), two worker processes
 * (this file with `--worker`) behind one deployment URL, and a release run that needs a human's
 * approval before `deploy`. While the run waits, the worker that ran it is SIGKILLed; the human
 * approves; Restate resumes the run on the surviving worker, which replays the journal (the
 * model call already made is not made again) and deploys.
 * Run: npx tsx examples/durable-restate.ts   (needs `npm run build`, like every example)
 */
import { fileURLToPath } from "node:url";
import { createAgent, humanApprovalMiddleware, tool } from "@tinyagents/harness";
import { assistant, type ChatModel, type ModelRequest, text, usage } from "@tinyagents/inference";
import { listenAgents, RestateAgentClient, restateAgents } from "@tinyagents/restate";
import { startRestateServer, startWorkerPool, WORKER_READY } from "@tinyagents/restate/testing";

const worker = process.env.TINYAGENTS_WORKER_INDEX ?? "?";

/**
 * An offline model that is a pure function of the transcript (not of how often it was called):
 * a run resumed on a fresh worker gets the same answers. It asks for the deploy, then reports.
 */
class ReleaseModel implements ChatModel {
  readonly provider = "offline";
  readonly modelId = "release-1";
  async invoke(request: ModelRequest) {
    const result = request.messages.find((m) => m.role === "tool");
    console.log(`[worker ${worker}] model call ${result === undefined ? 1 : 2}`);
    const spent = usage({ inputTokens: 60, outputTokens: 12 });
    if (result === undefined) {
      const call = { id: "call_deploy", name: "deploy", arguments: { version: "v2", env: "production" } };
      return {
        message: assistant("Deploying v2.", [call]),
        finishReason: "tool_calls" as const,
        usage: spent,
      };
    }
    return { message: assistant(`Released: ${text(result)}.`), finishReason: "stop" as const, usage: spent };
  }
}

function releaseAgent() {
  const deploy = tool({
    name: "deploy",
    description: "Deploy a version to an environment",
    inputSchema: { type: "object", properties: { version: { type: "string" }, env: { type: "string" } } },
    execute: ({ version, env }, ctx) => {
      console.log(
        `[worker ${worker}] deploy ${String(version)} to ${String(env)} (key ${ctx.idempotencyKey})`,
      );
      return `${String(version)} is live in ${String(env)}`;
    },
  });
  return createAgent({
    model: new ReleaseModel(),
    tools: [deploy],
    middleware: [humanApprovalMiddleware({ tools: ["deploy"] })], // waits durably on Restate
  });
}

if (process.argv.includes("--worker")) {
  // A worker: serve the agent as a Restate workflow on a free loopback port, say where.
  const quiet = (meta: { level: string }, message: unknown) => {
    if (meta.level === "error") console.error(message);
  };
  const endpoint = await listenAgents(restateAgents({ agents: { release: releaseAgent } }), {
    logger: quiet,
  });
  console.log(`${WORKER_READY} ${endpoint.port}`);
} else {
  const server = await startRestateServer({ retryInitialIntervalMs: 100 });
  console.log(`restate-server ready in ${server.startupMs} ms (ingress ${server.ingressUrl})`);
  let lastWorker = -1;
  const pool = await startWorkerPool({
    script: fileURLToPath(import.meta.url),
    args: ["--worker"],
    execArgv: ["--import", "tsx"],
    workers: 2,
    onLine: (line, index) => {
      lastWorker = index;
      console.log(line);
    },
  });
  try {
    await server.registerDeployment(pool.url);
    const client = new RestateAgentClient({ ingressUrl: server.ingressUrl });
    const runId = "release-42";
    await client.start("release", runId, "Ship v2 to production.");
    let status = await client.status("release", runId);
    while (status?.phase !== "waiting") {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await client.status("release", runId);
    }
    console.log(`run ${runId} is waiting for: ${status.waitingFor.join(", ")}`);
    const victim = lastWorker;
    await pool.kill(victim, "SIGKILL");
    console.log(`killed worker ${victim} (SIGKILL) while the run waits`);
    // Approve exactly the call that waits: its approval id and the hash of its tool and arguments.
    const [pending] = status.pendingApprovals ?? [];
    if (pending === undefined) throw new Error("the run waits for no approval");
    await client.approve("release", runId, pending.approvalId, { argumentsHash: pending.argumentsHash });
    console.log(`a human approved ${pending.toolName} (${pending.approvalId})`);
    const outcome = await client.result("release", runId);
    console.log(`run ${outcome.state} on worker ${lastWorker}: ${outcome.result.text}`);
    console.log(`finished on a different worker: ${lastWorker !== victim}`);
  } finally {
    await pool.stop();
    await server.stop();
  }
}
