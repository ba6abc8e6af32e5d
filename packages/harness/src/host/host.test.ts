import { describe, expect, it } from "vitest";
import { FakeTool } from "../testkit/fake-tool.js";
import { runScript } from "../testkit/run-script.js";
import {
  DenyListGate,
  FixedModelResolver,
  InMemoryContextComposer,
  InMemoryProgressSink,
} from "./host-capabilities.js";
import { hostMiddleware } from "./host-middleware.js";

describe("host capabilities", () => {
  it("composes context, resolves the model, gates tools and forwards progress", async () => {
    const progress = new InMemoryProgressSink();
    const { run, model, error } = await runScript({
      instructions: "Be brief.",
      script: [{ toolCalls: [{ name: "search" }, { name: "delete_all" }] }, "done"],
      tools: [
        FakeTool.of("search", (_a, ctx) => {
          ctx.progress("halfway");
          return "found";
        }),
        FakeTool.returning("delete_all", "deleted"),
      ],
      middleware: [
        hostMiddleware({
          contextComposer: new InMemoryContextComposer(["User prefers metric units."]),
          modelResolver: new FixedModelResolver("scripted"),
          securityGate: new DenyListGate({ delete_all: "destructive tools need approval" }),
          progressSink: progress,
        }),
      ],
    });
    expect(error).toBeUndefined();
    const request = model.requests[0];
    expect(request?.model).toBe("scripted");
    expect(request?.messages.slice(0, 2).map((m) => m.role)).toEqual(["system", "system"]);
    expect(request?.messages[1]?.content).toEqual([
      { type: "text", text: "Host context:\n- User prefers metric units." },
    ]);
    const results = run.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.role === "tool" && m.isError)).toEqual([false, true]);
    expect(results[1]?.content[0]).toMatchObject({
      text: expect.stringContaining('the host denied tool "delete_all": destructive tools need approval'),
    });
    expect(progress.reports).toEqual([
      { callId: "call-1", toolName: "search", message: "halfway", runId: "run-1", depth: 0 },
    ]);
  });

  it("installs only the hooks of the capabilities given", () => {
    const m = hostMiddleware({ progressSink: new InMemoryProgressSink() });
    expect(Object.keys(m).sort()).toEqual(["name", "onToolDelta"]);
  });
});
