/**
 * The file tools against attacks the path check alone cannot stop: a directory swapped for a
 * symlink pointing outside between the check and the I/O (>= 300 iterations per tool), hard
 * links to outside files, and violation messages that must not show host paths.
 */
import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { AgentHarness, type AnyTool, type ToolReturn } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { WorkspaceDescriptor } from "@tinyagents/harness/node";
import type { JsonObject } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDirTool, readFileTool, writeFileTool } from "../../src/builtin-tools/index.js";

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
  const ctx = lowerLayer(new AgentHarness()).createContext({}, undefined, {
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

/**
 * How `root/d` changes under the tools: `flip` renames the real directory and the outside
 * symlink in and out of `d` (as in the probe); `retarget` atomically replaces `d` by a
 * symlink to the real directory, then by one to the outside (a path check that resolves `d`
 * inside, then an open that follows it outside: the swap a check-then-open cannot survive).
 */
type SwapMode = "flip" | "retarget";

/**
 * Swap `root/d` (see {@link SwapMode}), as fast as the kernel allows,
 * on another THREAD (synchronous renames in a loop): the swaps happen while the main thread is
 * between its check and its open, not only at its `await` points, so the race window of a
 * check-then-open implementation is hit reliably (the pre-fix tools leak in every run; see
 * docs/security.md). Stopped through a shared flag.
 */
async function swapper(mode: SwapMode): Promise<{ swaps: () => number; stop: () => Promise<number> }> {
  // [0]: stop, [1]: swaps done, [2]: never set (the worker's sleeps wait on it).
  const flag = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `
    const { workerData, parentPort } = require("node:worker_threads");
    const { renameSync, symlinkSync, unlinkSync } = require("node:fs");
    const { flag, root, mode, outside } = workerData;
    const d = root + "/d";
    const tryRename = (a, b) => { try { renameSync(a, b); } catch {} };
    // Most states are held for up to 2 ms: a check-then-open with several awaits between
    // check and I/O (mkdir, then write) needs the link to stay in place across them; the
    // unheld states keep transitions frequent.
    const hold = () => { if (Math.random() < 0.8) Atomics.wait(flag, 2, 0, Math.random() * 2); };
    let swaps = 0;
    parentPort.postMessage("swapping");
    const retarget = (target) => {
      try { unlinkSync(root + "/d-tmp"); } catch {}
      try { symlinkSync(target, root + "/d-tmp"); } catch {}
      tryRename(root + "/d-tmp", d);
    };
    while (Atomics.load(flag, 0) === 0) {
      if (mode === "flip") {
        tryRename(root + "/d-real", d);
        hold();
        tryRename(d, root + "/d-real");
        tryRename(root + "/d-link", d);
        hold();
        tryRename(d, root + "/d-link");
      } else {
        retarget(root + "/d-real");
        hold();
        retarget(outside);
        hold();
      }
      swaps++;
      Atomics.store(flag, 1, swaps);
    }
    // Leave the tree as it started.
    if (mode === "flip") tryRename(d, root + "/d-real");
    else { try { unlinkSync(d); } catch {} }
    Atomics.store(flag, 1, swaps);
    `,
    { eval: true, workerData: { flag, root, mode, outside } },
  );
  const exited = new Promise<void>((resolve, reject) => {
    worker.once("exit", () => resolve());
    worker.once("error", reject);
  });
  // Start the attempts only once the swaps run (a worker takes a while to boot under load).
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  return {
    swaps: () => Atomics.load(flag, 1),
    stop: async () => {
      Atomics.store(flag, 0, 1);
      await exited;
      return Atomics.load(flag, 1);
    },
  };
}

/** Fewest swaps a race must overlap: fewer and the attempts may never have met a swap. */
const MIN_SWAPS = 20;

/**
 * At least `iterations` attempts, 4 at a time, while `root/d` is swapped; on a loaded machine the
 * swapper thread may get little CPU, so the attempts go on (up to 20x `iterations`) until the
 * swapper has done {@link MIN_SWAPS} swaps: a race that met no swap proves nothing.
 */
async function race(
  iterations: number,
  attempt: (i: number) => Promise<string>,
  mode: SwapMode = "flip",
): Promise<string[]> {
  const swap = await swapper(mode);
  const results: string[] = [];
  let next = 0;
  const more = () => next < iterations || (swap.swaps() < MIN_SWAPS && next < iterations * 20);
  try {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (more()) results.push(await attempt(next++));
      }),
    );
  } finally {
    const swaps = await swap.stop();
    expect(swaps).toBeGreaterThanOrEqual(MIN_SWAPS);
  }
  return results;
}

describe("check-then-open swap race", () => {
  it("read_file: 400 reads while d/ flips between a directory and a symlink outside: 0 outside reads", async () => {
    const tool = readFileTool();
    const results = await race(400, () => call(tool, { path: "d/f.txt" }));
    expect(results.filter((r) => r.includes(SECRET))).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(400);
    // And while d/ is retargeted between an inside and an outside symlink.
    const retargeted = await race(300, () => call(tool, { path: "d/f.txt" }), "retarget");
    expect(retargeted.filter((r) => r.includes(SECRET))).toEqual([]);
  }, 60_000);

  it("list_dir: 300 listings: 0 outside listings", async () => {
    await writeFile(join(outside, "only-outside.txt"), "x");
    const tool = listDirTool();
    const results = await race(300, () => call(tool, { path: "d" }));
    expect(results.filter((r) => r.includes("only-outside.txt"))).toEqual([]);
  }, 60_000);

  it("write_file: 4 x 300 writes (new and existing files, both swaps): 0 files created or changed outside", async () => {
    const tool = writeFileTool({ requireApproval: false });
    for (const mode of ["flip", "retarget"] as const) {
      await race(
        300,
        (i) => call(tool, { path: `d/new-${mode}-${i}.txt`, content: "pwned", overwrite: true }),
        mode,
      );
      await race(300, () => call(tool, { path: "d/f.txt", content: "pwned", overwrite: true }), mode);
    }
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
