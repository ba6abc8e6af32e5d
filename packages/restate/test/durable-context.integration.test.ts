// RestateDurableContext against a real restate-server (started from node_modules on loopback):
// journaled steps are never re-executed on replay, failures map to typed errors (terminal vs
// retried), signals and timeouts are durable, oversized values fail or go to artifacts.
import * as restate from "@restatedev/restate-sdk";
import { ArtifactStore } from "@tinyagents/harness";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEndpoint, listenAgents, RestateDurableContext } from "../src/index.js";
import { type RestateServer, startRestateServer } from "../src/testing/index.js";
import { quiet, RESTATE_SKIP } from "./support/restate-env.js";

const counts = new Map<string, number>();
const bump = (key: string) => {
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
};
const artifacts = new ArtifactStore();

type Scenario = "replay" | "terminal" | "exhaust" | "storage" | "signal" | "timeout" | "large" | "offload";

const probe = restate.workflow({
  name: "probe",
  handlers: {
    run: async (ctx: restate.WorkflowContext, scenario: Scenario) => {
      const key = ctx.key;
      bump(`${key}:attempt`);
      const durable = await RestateDurableContext.open(ctx, {
        stepRetry: { maxAttempts: 2, initialIntervalMs: 10 },
        maxStepBytes: 1024,
        artifacts,
      });
      const caught = async (fn: () => Promise<unknown>) => {
        try {
          return { value: await fn() };
        } catch (error) {
          if (!TinyAgentsError.isInstance(error)) return { foreign: String(error) };
          return { code: error.code, details: error.details ?? null, message: error.message };
        }
      };
      switch (scenario) {
        case "replay": {
          const id = durable.randomId("call");
          const startedAt = durable.now();
          const a = await durable.step("a", async () => bump(`${key}:a`), { kind: "tool" });
          const b = await durable.step(
            "b",
            async () => {
              if (bump(`${key}:b`) === 1) throw new Error("flaky on the first attempt");
              return "b-ok";
            },
            { kind: "tool" },
          );
          return { id, startedAt, a, b, clockAfter: durable.now() };
        }
        case "terminal":
          return caught(() =>
            durable.step(
              "model",
              async () => {
                bump(`${key}:model`);
                throw new TinyAgentsError("provider", "provider down after retries", {
                  details: { status: 503 },
                });
              },
              { kind: "model" },
            ),
          );
        case "exhaust":
          return caught(() =>
            durable.step(
              "boom",
              async () => {
                bump(`${key}:boom`);
                throw new Error("socket hang up");
              },
              { kind: "tool" },
            ),
          );
        case "storage":
          return caught(() =>
            durable.step(
              "write",
              async () => {
                bump(`${key}:write`);
                throw new TinyAgentsError("storage", "disk full");
              },
              { kind: "memory" },
            ),
          );
        case "signal":
          return { value: (await durable.awaitSignal("approval:x", { timeoutMs: 60_000 })) ?? null };
        case "timeout":
          return { value: (await durable.awaitSignal("never", { timeoutMs: 150 })) ?? "timed-out" };
        case "large":
          return caught(() => durable.step("big", async () => "x".repeat(2000), { kind: "model" }));
        case "offload":
          return caught(() =>
            durable.step(
              "tool:c1",
              async () => ({
                callId: "c1",
                toolName: "dump",
                content: [{ type: "text", text: "y".repeat(4000) }],
                isError: false,
                elapsedMs: 1,
              }),
              { kind: "tool" },
            ),
          );
      }
    },
    resolve: async (ctx: restate.WorkflowSharedContext, value: string) => {
      await ctx.promise("approval:x").resolve({ decision: value });
    },
  },
});

let server: RestateServer | undefined;
let worker: AgentEndpoint | undefined;

async function call(path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${server?.ingressUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? null),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

describe.skipIf(RESTATE_SKIP !== undefined)(
  `RestateDurableContext on restate-server${RESTATE_SKIP ? ` (${RESTATE_SKIP})` : ""}`,
  () => {
    beforeAll(async () => {
      server = await startRestateServer({ retryInitialIntervalMs: 20 });
      worker = await listenAgents([probe as never], { logger: quiet });
      await server.registerDeployment(worker.url);
    }, 60_000);

    afterAll(async () => {
      await worker?.close();
      await server?.stop();
    });

    it("replays a journaled step instead of running it again when the invocation is retried", async () => {
      const out = (await call("/probe/r1/run", "replay")) as Record<string, unknown>;
      expect(counts.get("r1:attempt")).toBeGreaterThanOrEqual(2); // step b's failure ended attempt 1
      expect(counts.get("r1:a")).toBe(1); // never re-executed: replayed from the journal
      expect(counts.get("r1:b")).toBe(2);
      expect(out.a).toBe(1);
      expect(out.b).toBe("b-ok");
      expect(out.id).toMatch(/^call-[0-9a-f-]{36}$/);
      expect(out.clockAfter as number).toBeGreaterThanOrEqual(out.startedAt as number);
    });

    it("records a TinyAgentsError as a terminal failure: no retry, same code and details", async () => {
      const out = await call("/probe/t1/run", "terminal");
      expect(out).toMatchObject({
        code: "provider",
        details: { status: 503 },
        message: "provider down after retries",
      });
      expect(counts.get("t1:model")).toBe(1);
    });

    it("retries an unclassified error up to maxAttempts, then fails it as internal", async () => {
      const out = await call("/probe/e1/run", "exhaust");
      expect(out).toMatchObject({ code: "internal" });
      expect(String((out as { message: string }).message)).toContain("socket hang up");
      expect(counts.get("e1:boom")).toBe(2);
    });

    it("retries a storage failure and keeps its code when the attempts run out", async () => {
      const out = await call("/probe/s1/run", "storage");
      expect(out).toMatchObject({ code: "storage" });
      expect(counts.get("s1:write")).toBe(2);
    });

    it("waits on a durable promise that a shared handler resolves, and times out to undefined", async () => {
      await call("/probe/w1/run/send", "signal");
      await call("/probe/w1/resolve", "approve");
      const out = await fetch(`${server?.ingressUrl}/restate/workflow/probe/w1/attach`).then((r) => r.json());
      expect(out).toEqual({ value: { decision: "approve" } });
      expect(await call("/probe/w2/run", "timeout")).toEqual({ value: "timed-out" });
    });

    it("refuses a step value larger than maxStepBytes, and offloads a large tool result to artifacts", async () => {
      const big = await call("/probe/l1/run", "large");
      expect(big).toMatchObject({ code: "limit_exceeded", details: { step: "big", maxBytes: 1024 } });
      expect((big as { message: string }).message).toContain("artifacts");
      const off = (await call("/probe/o1/run", "offload")) as {
        value: { content: { text: string }[]; artifacts: string[] };
      };
      expect(off.value.content[0]?.text).toMatch(
        /^\[artifact .+: dump-c1\.json, application\/json, \d+ bytes\]/,
      );
      const stored = await artifacts.get(off.value.artifacts[0] as string);
      expect(JSON.parse(String(stored?.content))[0].text).toHaveLength(4000);
    });
  },
);
