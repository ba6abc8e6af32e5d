/**
 * The file tools against attacks the path check alone cannot stop: a directory swapped for a
 * symlink pointing outside between the check and the I/O (>= 300 iterations per tool), hard
 * links to outside files, and violation messages that must not show host paths.
 */
import { link, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, type AnyTool, type ToolReturn } from "@tinyagents/harness";
import { WorkspaceDescriptor } from "@tinyagents/harness/node";
import type { JsonObject } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDirTool, readFileTool, writeFileTool } from "../../src/tools/index.js";

const SECRET = "top secret outside the workspace";
let dir: string;
let root: string;
let outside: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tinyagents-races-"));
  root = join(dir, "ws");
  outside = join(dir, "outside");
  await mkdir(join(root, "d-real"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, "f.txt"), SECRET);
  await writeFile(join(root, "d-real", "f.txt"), "inside");
  await symlink(outside, join(root, "d-link"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function call(t: AnyTool, args: JsonObject): Promise<string> {
  const ctx = new AgentHarness().createContext({}, undefined, {
    workspace: new WorkspaceDescriptor({ root, sandbox: "read_write" }),
  });
  const validation = await t.validate(args);
  if (!validation.ok) throw new Error("invalid args");
  const out = (await t.execute(validation.value, {
    state: undefined,
    run: ctx,
    callId: "c",
    signal: ctx.signal,
    progress: () => {},
  })) as ToolReturn | string | JsonObject;
  if (typeof out === "string") return out;
  if ("kind" in out && out.kind === "tool_return") {
    return (out as ToolReturn).content.map((b) => (b.type === "text" ? b.text : "")).join("");
  }
  return JSON.stringify(out);
}

/** Swap `root/d` between the real directory and the outside symlink until `stop()`. */
function swapper(): { stop: () => Promise<number> } {
  let running = true;
  let swaps = 0;
  const d = join(root, "d");
  const loop = (async () => {
    while (running) {
      await rename(join(root, "d-real"), d).catch(() => undefined);
      await new Promise((r) => setImmediate(r));
      await rename(d, join(root, "d-real")).catch(() => undefined);
      await rename(join(root, "d-link"), d).catch(() => undefined);
      await new Promise((r) => setImmediate(r));
      await rename(d, join(root, "d-link")).catch(() => undefined);
      swaps++;
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return swaps;
    },
  };
}

async function race(iterations: number, attempt: (i: number) => Promise<string>): Promise<string[]> {
  const swap = [swapper(), swapper()];
  const results: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < iterations) results.push(await attempt(next++));
    }),
  );
  const swaps = (await Promise.all(swap.map((s) => s.stop()))).reduce((a, b) => a + b, 0);
  expect(swaps).toBeGreaterThan(10);
  return results;
}

describe("check-then-open swap race", () => {
  it("read_file: 400 reads while d/ flips between a directory and a symlink outside: 0 outside reads", async () => {
    const tool = readFileTool();
    const results = await race(400, () => call(tool, { path: "d/f.txt" }));
    expect(results.filter((r) => r.includes(SECRET))).toEqual([]);
    expect(results.length).toBe(400);
  }, 60_000);

  it("list_dir: 300 listings: 0 outside listings", async () => {
    await writeFile(join(outside, "only-outside.txt"), "x");
    const tool = listDirTool();
    const results = await race(300, () => call(tool, { path: "d" }));
    expect(results.filter((r) => r.includes("only-outside.txt"))).toEqual([]);
  }, 60_000);

  it("write_file: 300 writes: 0 files created or changed outside", async () => {
    const tool = writeFileTool({ requireApproval: false });
    await race(300, (i) => call(tool, { path: `d/new-${i}.txt`, content: "pwned", overwrite: true }));
    await race(300, () => call(tool, { path: "d/f.txt", content: "pwned", overwrite: true }));
    expect((await readdir(outside)).sort()).toEqual(["f.txt"]);
    expect(await readFile(join(outside, "f.txt"), "utf8")).toBe(SECRET);
  }, 60_000);
});

describe("hard links", () => {
  beforeEach(async () => {
    await link(join(outside, "f.txt"), join(root, "hard.txt"));
  });

  it("read_file refuses a file with more than one link, unless allowHardLinks", async () => {
    const said = await call(readFileTool(), { path: "hard.txt" });
    expect(said).not.toContain(SECRET);
    expect(said).toMatch(/hard links/);
    expect(await call(readFileTool({ allowHardLinks: true }), { path: "hard.txt" })).toBe(SECRET);
  });

  it("write_file { overwrite: true } never changes the outside file", async () => {
    const said = await call(writeFileTool({ requireApproval: false }), {
      path: "hard.txt",
      content: "pwned",
      overwrite: true,
    });
    expect(said).toMatch(/hard links/);
    expect(await readFile(join(outside, "f.txt"), "utf8")).toBe(SECRET);
    // Opted in, the write replaces the workspace entry (temp file + rename), not the outside inode.
    await call(writeFileTool({ requireApproval: false, allowHardLinks: true }), {
      path: "hard.txt",
      content: "mine",
      overwrite: true,
    });
    expect(await readFile(join(root, "hard.txt"), "utf8")).toBe("mine");
    expect(await readFile(join(outside, "f.txt"), "utf8")).toBe(SECRET);
  });

  it("a symlink at the target is replaced by write_file, never written through", async () => {
    await symlink(join(outside, "f.txt"), join(root, "d-real", "inner-link.txt"));
    const said = await call(writeFileTool({ requireApproval: false }), {
      path: "d-real/inner-link.txt",
      content: "pwned",
      overwrite: true,
    });
    expect(said).not.toContain(SECRET);
    expect(await readFile(join(outside, "f.txt"), "utf8")).toBe(SECRET);
  });
});

describe("violation messages name root-relative paths only", () => {
  it("no absolute host path (workspace, outside file, /proc/<pid>) reaches the model", async () => {
    const attempts: Array<[AnyTool, JsonObject]> = [
      [readFileTool(), { path: "../outside/f.txt" }],
      [readFileTool(), { path: "d-link/f.txt" }],
      [readFileTool(), { path: "/proc/self/environ" }],
      [listDirTool(), { path: "d-link" }],
      [writeFileTool({ requireApproval: false }), { path: "../x.txt", content: "x" }],
      [readFileTool(), { path: "missing/file.txt" }],
    ];
    for (const [tool, args] of attempts) {
      const said = await call(tool, args);
      expect(said).not.toContain(dir);
      expect(said).not.toMatch(/\/proc\/\d+/);
      expect(said).not.toContain(SECRET);
    }
  });
});
