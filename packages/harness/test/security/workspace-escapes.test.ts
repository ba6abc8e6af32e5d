/**
 * Every built-in file tool (`read_file`, `list_dir`, `write_file`) against every way out of the
 * workspace: `..` traversal, traversal hidden in a longer path, an absolute path, a symlinked
 * file and a symlinked directory pointing outside. Each attempt must come back as an error
 * result (never a throw, never content from outside), report a `workspace.violation`, and leave
 * the outside world untouched.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AnyTool, type ToolReturn } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { WorkspaceDescriptor } from "@tinyagents/harness/node";
import type { JsonObject } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listDirTool, readFileTool, writeFileTool } from "../../src/builtin-tools/index.js";

let dir: string;
let root: string;
const SECRET = "top secret outside the workspace";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tinyagents-escapes-"));
  root = join(dir, "ws");
  await mkdir(join(root, "sub"), { recursive: true });
  await mkdir(join(dir, "outside"));
  await writeFile(join(dir, "secret.txt"), SECRET);
  await writeFile(join(dir, "outside", "secret.txt"), SECRET);
  await symlink(join(dir, "secret.txt"), join(root, "link-file.txt"));
  await symlink(join(dir, "outside"), join(root, "link-dir"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const TOOLS: readonly [string, () => AnyTool, (path: string) => JsonObject][] = [
  ["read_file", () => readFileTool(), (path) => ({ path })],
  ["list_dir", () => listDirTool(), (path) => ({ path })],
  [
    "write_file",
    () => writeFileTool({ requireApproval: false }),
    (path) => ({ path, content: "pwned", overwrite: true }),
  ],
];

const ESCAPES: readonly [string, () => string][] = [
  ["parent traversal", () => "../secret.txt"],
  ["traversal inside a path", () => "sub/../../outside/secret.txt"],
  ["absolute path outside", () => join(dir, "secret.txt")],
  ["symlinked file pointing outside", () => "link-file.txt"],
  ["symlinked directory pointing outside", () => "link-dir/secret.txt"],
  ["the symlinked directory itself", () => "link-dir"],
];

async function call(t: AnyTool, args: JsonObject) {
  const harness = new AgentHarness();
  const ctx = lowerLayer(harness).createContext({}, undefined, {
    workspace: new WorkspaceDescriptor({ root, sandbox: "read_write" }),
  });
  const events: string[] = [];
  ctx.events.subscribe((r) => events.push(r.event.type));
  const validation = await t.validate(args);
  if (!validation.ok)
    return { out: { kind: "tool_return", content: [], isError: true } as ToolReturn, events };
  const out = await t.execute(validation.value, {
    state: undefined,
    run: ctx,
    callId: "c",
    signal: ctx.signal,
    progress: () => {},
  });
  return { out, events };
}

describe.each(TOOLS)("%s", (_name, make, argsFor) => {
  it.each(ESCAPES)("refuses %s", async (_escape, path) => {
    const { out, events } = await call(make(), argsFor(path()));
    const ret = out as ToolReturn;
    expect(ret.isError).toBe(true);
    const said = ret.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    expect(said).not.toContain(SECRET);
    expect(said).toMatch(/outside|not allowed|escape|workspace/i);
    expect(events).toContain("workspace.violation");
    // Nothing outside was read into the answer, written, or listed.
    expect(await readFile(join(dir, "secret.txt"), "utf8")).toBe(SECRET);
    expect(await readFile(join(dir, "outside", "secret.txt"), "utf8")).toBe(SECRET);
    expect((await readdir(dir)).sort()).toEqual(["outside", "secret.txt", "ws"]);
  });
});
