import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import type { AnyTool, ToolReturn } from "../tool/tool.js";
import { WorkspaceDescriptor } from "../workspace/workspace-descriptor.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { fileTools } from "./toolsets.js";
import { writeFileTool } from "./write-file.js";

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tinyagents-fs-tools-"));
  root = join(dir, "ws");
  await mkdir(join(root, "sub"), { recursive: true });
  await writeFile(join(root, "hello.txt"), "hello world\n");
  await writeFile(join(root, "sub", "data.bin"), Buffer.from([1, 0, 2]));
  await writeFile(join(dir, "secret.txt"), "top secret");
  await symlink(join(dir, "secret.txt"), join(root, "escape.txt"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function call(t: AnyTool, args: JsonObject, sandbox: "read_write" | "read_only" = "read_write") {
  const harness = new AgentHarness();
  const events: string[] = [];
  const ctx = lowerLayer(harness).createContext({}, undefined, {
    workspace: new WorkspaceDescriptor({ root, sandbox }),
  });
  ctx.events.subscribe((r) => events.push(r.event.type));
  const validation = await t.validate(args);
  if (!validation.ok) throw new Error(validation.issues.join("; "));
  const out = await t.execute(validation.value, {
    state: undefined,
    run: ctx,
    callId: "c",
    signal: ctx.signal,
    progress: () => {},
  });
  return { out, events };
}

const errorText = (out: unknown): string => {
  const ret = out as ToolReturn;
  expect(ret.isError).toBe(true);
  return ret.content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

describe("read_file", () => {
  it("reads a text file in the workspace", async () => {
    expect((await call(readFileTool(), { path: "hello.txt" })).out).toBe("hello world\n");
  });

  it("cuts long files and says so", async () => {
    expect((await call(readFileTool({ maxBytes: 5 }), { path: "hello.txt" })).out).toBe(
      "hello\n[truncated: showed 5 of 12 bytes]",
    );
  });

  it.each([
    ["../secret.txt", "outside the workspace root"],
    ["<tmp>/secret.txt", "outside the workspace root"],
    ["escape.txt", "outside the workspace root"],
    ["missing.txt", "no such file"],
    ["sub", "is a directory"],
    ["sub/data.bin", "binary file"],
  ])("refuses %s as an error result", async (path, message) => {
    const { out, events } = await call(readFileTool(), { path: path.replace("<tmp>", dir) });
    expect(errorText(out)).toContain(message);
    if (message.includes("outside")) expect(events).toContain("workspace.violation");
  });

  it("refuses everything when the run has no workspace", async () => {
    const run = lowerLayer(new AgentHarness()).createContext({}, undefined);
    const out = await readFileTool().execute(
      { path: "hello.txt" },
      { state: undefined, run, callId: "c", signal: run.signal, progress: () => {} },
    );
    expect(errorText(out)).toContain("has no workspace");
  });
});

describe("list_dir", () => {
  it("lists sorted entries with types and sizes", async () => {
    const { out } = await call(listDirTool(), {});
    expect(out).toEqual({
      path: ".",
      entries: [
        { name: "escape.txt", type: "symlink" },
        { name: "hello.txt", type: "file", size: 12 },
        { name: "sub", type: "dir" },
      ],
      truncated: false,
      total: 3,
    });
  });

  it("refuses paths outside the workspace", async () => {
    expect(errorText((await call(listDirTool(), { path: ".." })).out)).toContain(
      "outside the workspace root",
    );
  });
});

describe("write_file", () => {
  it("is opt-in and asks for approval by default", () => {
    expect(fileTools().map((t) => t.name)).toEqual(["read_file", "list_dir"]);
    expect(fileTools({ write: true }).map((t) => t.name)).toEqual(["read_file", "list_dir", "write_file"]);
    expect(writeFileTool().policy).toEqual({
      sideEffects: "destructive",
      requiresSandbox: true,
      requiresApproval: true,
    });
    expect(writeFileTool({ requireApproval: false }).policy?.requiresApproval).toBe(false);
  });

  it("writes inside the workspace, creating parents, and will not overwrite unless asked", async () => {
    expect((await call(writeFileTool(), { path: "out/new.txt", content: "hi" })).out).toBe(
      "wrote 2 bytes to out/new.txt",
    );
    expect(await readFile(join(root, "out", "new.txt"), "utf8")).toBe("hi");
    expect(errorText((await call(writeFileTool(), { path: "out/new.txt", content: "again" })).out)).toContain(
      "already exists",
    );
    await call(writeFileTool(), { path: "out/new.txt", content: "again", overwrite: true });
    expect(await readFile(join(root, "out", "new.txt"), "utf8")).toBe("again");
  });

  it("refuses escapes and read-only workspaces", async () => {
    expect(errorText((await call(writeFileTool(), { path: "../x.txt", content: "x" })).out)).toContain(
      "outside",
    );
    expect(
      errorText((await call(writeFileTool(), { path: "escape.txt", content: "x", overwrite: true })).out),
    ).toContain("outside");
    expect(
      errorText((await call(writeFileTool(), { path: "y.txt", content: "y" }, "read_only")).out),
    ).toContain("read_only");
    expect(await readFile(join(dir, "secret.txt"), "utf8")).toBe("top secret");
  });
});
