import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../cli-io.js";
import { main } from "../main.js";

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tinyagents-dcv-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function io(stdin: NodeJS.ReadableStream = Readable.from([]), signals?: EventEmitter) {
  const out = { stdout: "", stderr: "" };
  const cliIo: CliIo = {
    stdout: { write: (c: string) => (out.stdout += c), isTTY: false },
    stderr: { write: (c: string) => (out.stderr += c) },
    stdin,
    env: { TINYAGENTS_HOME: home, HOME: home, OLLAMA_HOST: "127.0.0.1:1", TINYAGENTS_DEMO_DELAY_MS: "0" },
    cwd: home,
    ...(signals === undefined
      ? {}
      : {
          signals: {
            on: (event: "SIGINT", listener: () => void) => signals.on(event, listener),
            off: (event: "SIGINT", listener: () => void) => signals.off(event, listener),
          },
        }),
  };
  return { io: cliIo, out };
}

describe("tinyagents demo", () => {
  it("is journaled: the run id it prints works with `tinyagents show`", async () => {
    const demo = io();
    expect(await main(["demo"], demo.io)).toBe(0);
    const runId = /tinyagents show (run-\S+)/.exec(demo.out.stdout)?.[1];
    expect(runId, demo.out.stdout).toBeDefined();
    expect(demo.out.stdout).toContain(`run id: ${runId}`);
    const show = io();
    expect(await main(["show", runId as string], show.io)).toBe(0);
    expect(show.out.stdout).toContain(`run ${runId}`);
    expect(show.out.stdout).toMatch(/tool current_time \{"timezone":"Asia\/Tokyo"\} · ok/);
    expect(show.out.stdout).toContain("sub-agent");
    const runs = io();
    await main(["runs"], runs.io);
    expect(runs.out.stdout).toContain(runId);
  });
});

describe("tinyagents chat", () => {
  it("exits 130 on Ctrl-C at the prompt (as docs/cli.md says), 0 on /exit", async () => {
    const stdin = new PassThrough(); // stays open: the chat waits at its prompt
    const signals = new EventEmitter();
    const chat = io(stdin, signals);
    const done = main(["chat", "--thread", "t-sigint"], chat.io);
    while (signals.listenerCount("SIGINT") === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    signals.emit("SIGINT");
    expect(await done).toBe(130);
    expect(chat.out.stdout).toContain("thread t-sigint");

    const bye = io(Readable.from(["/exit\n"]));
    expect(await main(["chat", "--thread", "t-sigint"], bye.io)).toBe(0);
  });
});

describe("tinyagents --version", () => {
  it("prints the version of the installed package", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const v = io();
    expect(await main(["--version"], v.io)).toBe(0);
    expect(v.out.stdout).toBe(`tinyagents ${version} (Node.js ${process.versions.node})\n`);
  });
});
