import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runText } from "../agent-loop/agent-run.js";
import { EventSink } from "../events/event-sink.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import type { ToolReturn } from "../tool/tool.js";
import { loadMcpTools, type McpToolset } from "./mcp-toolset.js";

// The real reference servers (root devDependencies), started over stdio with this Node binary.
const require = createRequire(import.meta.url);
const serverPath = (pkg: string) => require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`);
const everything = { command: process.execPath, args: [serverPath("server-everything")] };

let dir: string;
let mcp: McpToolset;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tinyagents-mcp-"));
  await writeFile(join(dir, "notes.txt"), "hello from the filesystem server\n");
  mcp = await loadMcpTools([
    { ...everything, trustAnnotations: true },
    { name: "files", command: process.execPath, args: [serverPath("server-filesystem"), dir] },
  ]);
}, 30_000);

afterAll(async () => {
  await mcp?.close();
  await rm(dir, { recursive: true, force: true });
});

const ctxFor = (harness = new AgentHarness()) => {
  const run = lowerLayer(harness).createContext({}, undefined);
  const progress: string[] = [];
  return {
    progress,
    ctx: {
      state: undefined,
      run,
      callId: "c1",
      signal: run.signal,
      progress: (m: string) => progress.push(m),
    },
  };
};
const tool = (name: string) => {
  const found = mcp.tools.find((t) => t.name === name);
  if (found === undefined)
    throw new Error(`no tool ${name}; have ${mcp.tools.map((t) => t.name).join(", ")}`);
  return found;
};

describe("MCP tools from the reference servers (stdio)", () => {
  it("lists both servers' tools with snake_case names and a mapping back", () => {
    const names = mcp.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["echo", "get_sum", "get_tiny_image", "read_text_file", "list_directory"]),
    );
    expect(names.every((n) => /^[a-z][a-z0-9_]*$/.test(n))).toBe(true);
    expect(mcp.names.get("get_sum")).toEqual({ server: "mcp-servers/everything", mcpName: "get-sum" });
    expect(mcp.names.get("read_text_file")).toEqual({ server: "files", mcpName: "read_text_file" });
    expect(tool("get_sum").parameters).toMatchObject({ type: "object", required: ["a", "b"] });
    expect(tool("get_sum").parameters).not.toHaveProperty("$schema");
    // "everything" is trusted (its hints are believed); "files" is not, so its hints are ignored.
    expect(tool("get_sum").policy).toEqual({ sideEffects: "read" });
    expect(tool("get_sum").idempotent).toBe(true);
    expect(tool("read_text_file").policy).toEqual({ sideEffects: "destructive" });
    expect(tool("read_text_file").idempotent).toBeUndefined();
  });

  it("runs in an agent loop", async () => {
    const harness = new AgentHarness().registerModel(
      "m",
      new ScriptedModel([{ toolCalls: [{ name: "get_sum", arguments: { a: 19, b: 23 } }] }, "done"]),
    );
    mcp.attach(harness);
    const run = await lowerLayer(harness).invokeDefault(undefined, "add");
    expect(runText(run)).toBe("done");
    const result = run.messages.find((m) => m.role === "tool");
    expect(result).toMatchObject({
      toolName: "get_sum",
      isError: false,
      content: [{ type: "text", text: "The sum of 19 and 23 is 42." }],
    });
  });

  it("maps structured content, images and isError results", async () => {
    const { ctx } = ctxFor();
    const structured = (await tool("get_structured_content").execute(
      { location: "Chicago" },
      ctx,
    )) as ToolReturn;
    expect(structured.raw).toMatchObject({ structuredContent: { temperature: expect.any(Number) } });
    const image = (await tool("get_tiny_image").execute({}, ctx)) as ToolReturn;
    expect(image.content).toContainEqual({
      type: "image",
      source: { kind: "base64", data: expect.any(String), mimeType: "image/png" },
    });
    // Bypass our validation to see the server's own error result.
    const bad = (await tool("get_sum").execute({ a: "x" }, ctx)) as ToolReturn;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("-32602");
    expect(tool("get_sum").validate({ a: "x" })).toEqual({ ok: false, issues: expect.any(Array) });
  });

  it("forwards progress notifications to ctx.progress", async () => {
    const { ctx, progress } = ctxFor();
    const out = (await tool("trigger_long_running_operation").execute(
      { duration: 0.3, steps: 3 },
      ctx,
    )) as ToolReturn;
    expect(out.isError).toBe(false);
    // The last notification may race the result (the SDK drops progress once the call resolved).
    expect(progress.slice(0, 2)).toEqual(["1/3", "2/3"]);
  });

  it("passes the abort signal to the server", async () => {
    const controller = new AbortController();
    const { ctx } = ctxFor();
    const started = Date.now();
    const call = tool("trigger_long_running_operation").execute(
      { duration: 20, steps: 20 },
      { ...ctx, signal: controller.signal, progress: () => controller.abort(new Error("stop")) },
    );
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("reads files through the filesystem server, confined to its root", async () => {
    const { ctx } = ctxFor();
    const read = (await tool("read_text_file").execute({ path: join(dir, "notes.txt") }, ctx)) as ToolReturn;
    expect(read).toMatchObject({
      isError: false,
      content: [{ type: "text", text: "hello from the filesystem server\n" }],
    });
    const outside = (await tool("read_text_file").execute({ path: "/etc/hostname" }, ctx)) as ToolReturn;
    expect(outside.isError).toBe(true);
    const listing = (await tool("list_directory").execute({ path: dir }, ctx)) as ToolReturn;
    expect(JSON.stringify(listing.content)).toContain("notes.txt");
  });

  it("explains a server that cannot start", async () => {
    await expect(loadMcpTools({ command: "definitely-not-an-mcp-server-xyz" })).rejects.toThrow(
      /was not found/,
    );
    await expect(
      loadMcpTools({
        command: process.execPath,
        args: ["-e", "console.error('boom: bad config'); process.exit(3)"],
      }),
    ).rejects.toThrow(/boom: bad config/);
  });

  it("emits tool.progress events in a run", async () => {
    const harness = new AgentHarness().registerModel(
      "m",
      new ScriptedModel([
        { toolCalls: [{ name: "trigger_long_running_operation", arguments: { duration: 0.2, steps: 2 } }] },
        "ok",
      ]),
    );
    mcp.attach(harness);
    const recorder = new EventRecorder();
    const events = new EventSink("progress-run");
    recorder.attach(events);
    await lowerLayer(harness).invoke(undefined, undefined, { runId: "progress-run" }, "go", { events });
    const progress = recorder.ofType("tool.progress");
    expect(progress[0]).toMatchObject({
      toolName: "trigger_long_running_operation",
      message: "1/2",
      data: { progress: 1, total: 2 },
    });
  });
});
