/**
 * Acceptance: the workspace sandbox. Symlink, `..` and absolute-path escapes are rejected with a
 * `validation` error and a `workspace.violation` event; legitimate nested paths (existing or
 * not yet created) are allowed; isolation providers prepare and clean up.
 */
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, EventSink, SubAgent, SubAgentTool, tool } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { SharedRootWorkspace, TempDirWorkspace, WorkspaceDescriptor } from "@tinyagents/harness/node";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { enforceWorkspace, withWorkspace } from "@tinyagents/harness/workspace";
import { text } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "tinyagents-ws-"));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(root, "src", "a.txt"), "inside");
  await writeFile(join(outside, "secret.txt"), "secret");
  await symlink(outside, join(root, "escape-dir"));
  await symlink(join(outside, "secret.txt"), join(root, "escape-file"));
  await symlink(join(outside, "not-yet.txt"), join(root, "dangling"));
  await symlink(join(root, "src"), join(root, "src-alias"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function recorder() {
  const events = new EventRecorder();
  const sink = new EventSink("ws");
  events.attach(sink);
  const target = {
    emit: (event: Parameters<EventSink["emit"]>[1]) =>
      sink.emit({ runId: "ws", rootRunId: "ws", depth: 0 }, event),
  };
  return { events, target };
}

describe("WorkspaceDescriptor.enforce", () => {
  it.each([
    ["a `..` escape", () => "../outside/secret.txt"],
    ["a deep `..` escape", () => "src/deep/../../../outside/secret.txt"],
    ["an absolute path outside the root", () => join(outside, "secret.txt")],
    ["/etc/passwd", () => "/etc/passwd"],
    ["a symlinked directory pointing out", () => "escape-dir/secret.txt"],
    ["a symlinked file pointing out", () => "escape-file"],
    ["a new file under a symlink pointing out", () => "escape-dir/new/file.txt"],
    ["a dangling symlink pointing out", () => "dangling"],
  ])("rejects %s with validation + workspace.violation", async (_name, path) => {
    const ws = new WorkspaceDescriptor({ root, policyId: "test" });
    const { events, target } = recorder();
    await expect(ws.enforce(path(), { events: target, access: "write" })).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("workspace violation"),
    });
    expect(events.ofType("workspace.violation")).toEqual([
      {
        type: "workspace.violation",
        path: path(),
        reason: expect.stringContaining("outside the workspace root"),
      },
    ]);
  });

  it.each([
    ["an existing nested file", "src/a.txt", ["src", "a.txt"]],
    ["a not-yet-existing nested file", "src/new/dir/b.txt", ["src", "new", "dir", "b.txt"]],
    ["a `..` that stays inside", "src/deep/../a.txt", ["src", "a.txt"]],
    ["a symlink that stays inside", "src-alias/a.txt", ["src", "a.txt"]],
    ["the root itself", ".", []],
  ])("allows %s", async (_name, path, parts) => {
    const ws = new WorkspaceDescriptor({ root });
    const { events, target } = recorder();
    const real = await ws.enforce(path, { events: target, access: "write" });
    const realRoot = await ws.enforce(".");
    expect(real).toBe(join(realRoot, ...parts));
    expect(events.records).toEqual([]);
  });

  it("allows an absolute path inside the root", async () => {
    const ws = new WorkspaceDescriptor({ root });
    await expect(ws.enforce(join(root, "src", "a.txt"))).resolves.toMatch(/src[/\\]a\.txt$/);
  });

  it("read_only sandboxes reject writes; trusted roots are readable but not writable", async () => {
    const readOnly = new WorkspaceDescriptor({ root, sandbox: "read_only" });
    await expect(readOnly.enforce("src/a.txt")).resolves.toBeTypeOf("string");
    await expect(readOnly.enforce("src/a.txt", { access: "write" })).rejects.toThrow(/sandbox is read_only/);
    const trusting = new WorkspaceDescriptor({ root, trustedRoots: [outside] });
    await expect(trusting.enforce(join(outside, "secret.txt"))).resolves.toMatch(/secret\.txt$/);
    await expect(trusting.enforce("escape-dir/secret.txt")).resolves.toMatch(/secret\.txt$/);
    await expect(trusting.enforce(join(outside, "secret.txt"), { access: "write" })).rejects.toThrow(
      /read-only/,
    );
  });

  it("rejects empty and NUL paths, and a missing root fails closed", async () => {
    const ws = new WorkspaceDescriptor({ root });
    await expect(ws.enforce("")).rejects.toThrow(/empty/);
    await expect(ws.enforce("a\0b")).rejects.toThrow(/NUL/);
    const missing = new WorkspaceDescriptor({ root: join(base, "missing") });
    await expect(missing.enforce("x")).rejects.toThrow(/cannot be resolved.*prepare it first/);
  });
});

describe("workspace in a run", () => {
  const readFile = tool({
    name: "read_file",
    description: "reads a file in the workspace",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: async ({ path }, ctx) => {
      const real = await enforceWorkspace(ctx.run, String(path));
      return `ok ${real.endsWith("a.txt") ? "a.txt" : real}`;
    },
  });

  it("threads the descriptor to every tool call; escapes become error results with an event", async () => {
    const harness = new AgentHarness<undefined, undefined>({
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    })
      .registerModel(
        "m",
        new ScriptedModel([
          {
            toolCalls: [
              { id: "1", name: "read_file", arguments: { path: "src/a.txt" } },
              { id: "2", name: "read_file", arguments: { path: "../outside/secret.txt" } },
              { id: "3", name: "read_file", arguments: { path: "escape-file" } },
            ],
          },
          "done",
        ]),
      )
      .registerTool(readFile);
    const sink = new EventSink("run");
    const events = new EventRecorder();
    events.attach(sink);
    const out = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run" },
      "read",
      {
        events: sink,
        workspace: new WorkspaceDescriptor({ root }),
      },
    );
    expect(out.error).toBeUndefined();
    const results = out.run.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.role === "tool" && m.isError)).toEqual([false, true, true]);
    expect(text(results[0])).toBe("ok a.txt");
    expect(text(results[1])).toContain("workspace violation");
    // The calls run concurrently: violations arrive in file-system completion order.
    const violations = events.ofType("workspace.violation").map((e) => e.path);
    expect(violations.sort()).toEqual(["../outside/secret.txt", "escape-file"]);
  });

  it("a run without a workspace rejects every path (fail-closed)", async () => {
    const harness = new AgentHarness<undefined, undefined>({
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    })
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ id: "1", name: "read_file", arguments: { path: "a" } }] }, "x"]),
      )
      .registerTool(readFile);
    const out = await lowerLayer(harness).invokeCollectingPartial(undefined, undefined, {}, "read");
    const [result] = out.run.messages.filter((m) => m.role === "tool");
    expect(text(result)).toContain("has no workspace");
  });
});

describe("workspace isolation", () => {
  it("TempDirWorkspace prepares a fresh directory per run and removes it at cleanup", async () => {
    const parentDir = join(base, "runs");
    const isolation = new TempDirWorkspace({ parentDir });
    const harness = new AgentHarness<undefined, undefined>({
      clock: new DeterministicClock(),
      ids: new DeterministicIds(),
    })
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ id: "1", name: "touch" }] }, "done"]))
      .registerTool(
        FakeTool.of("touch", async (_args, ctx) => {
          const path = await enforceWorkspace(ctx.run, "out/file.txt", "write");
          await mkdir(join(path, ".."), { recursive: true });
          await writeFile(path, "x");
          return path;
        }),
      );
    const sink = new EventSink("iso");
    const events = new EventRecorder();
    events.attach(sink);
    const ctx = lowerLayer(harness).createContext({ runId: "iso-1" }, undefined, { events: sink });
    let seenRoot = "";
    await withWorkspace(isolation, ctx, async (ws) => {
      seenRoot = ws.root;
      expect((await stat(ws.root)).isDirectory()).toBe(true);
      await lowerLayer(harness).invokeInContext(undefined, ctx, "go");
      expect(await readdir(join(ws.root, "out"))).toEqual(["file.txt"]);
    });
    await expect(stat(seenRoot)).rejects.toMatchObject({ code: "ENOENT" });
    expect(seenRoot).toContain("iso-1");
    expect(events.ofType("workspace.prepared")).toEqual([
      { type: "workspace.prepared", policyId: "temp_dir", root: seenRoot },
    ]);
    expect(events.ofType("workspace.cleanup")).toEqual([
      { type: "workspace.cleanup", policyId: "temp_dir", root: seenRoot },
    ]);
  });

  it("SharedRootWorkspace gives every run the same root and leaves it in place", async () => {
    const shared = new SharedRootWorkspace(join(base, "shared"));
    const a = await shared.prepare();
    const b = await shared.prepare();
    expect(a).toBe(b);
    await shared.cleanup();
    expect((await stat(a.root)).isDirectory()).toBe(true);
  });

  it("a sub-agent with its own isolation works in its own directory, inside the parent's run", async () => {
    const clock = new DeterministicClock();
    const ids = new DeterministicIds();
    const seen: string[] = [];
    const recordRoot = FakeTool.of("where", (_args, ctx) => {
      seen.push(ctx.run.workspace?.root ?? "none");
      return "noted";
    });
    const child = new SubAgent({
      name: "sandboxed",
      description: "works in a temp dir",
      workspace: new TempDirWorkspace({ parentDir: join(base, "children") }),
      harness: new AgentHarness<undefined, undefined>({ clock, ids })
        .registerModel("m", new ScriptedModel([{ toolCalls: [{ id: "c", name: "where" }] }, "child done"]))
        .registerTool(recordRoot),
    });
    const parent = new AgentHarness<undefined, undefined>({ clock, ids })
      .registerModel(
        "m",
        new ScriptedModel([
          {
            toolCalls: [
              { id: "p1", name: "where" },
              { id: "p2", name: "sandboxed", arguments: { input: "go" } },
            ],
          },
          "parent done",
        ]),
      )
      .registerTool(recordRoot)
      .registerTool(new SubAgentTool(child));
    const out = await lowerLayer(parent).invokeCollectingPartial(undefined, undefined, {}, "go", {
      workspace: new WorkspaceDescriptor({ root }),
    });
    expect(out.error).toBeUndefined();
    expect(seen).toHaveLength(2);
    expect(seen).toContain(root);
    const childRoot = seen.find((r) => r !== root) ?? "";
    expect(childRoot.startsWith(join(base, "children"))).toBe(true);
    await expect(stat(childRoot)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
