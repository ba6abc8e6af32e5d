import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { pressCtrlC, useCli } from "../../test/support/cli.js";
import { main } from "../main.js";

const { cli, io } = useCli("tinyagents-dcv-");

describe("tinyagents demo", () => {
  it("is journaled: the run id it prints works with `tinyagents show`", async () => {
    const demo = await cli(["demo"]);
    expect(demo.code).toBe(0);
    const runId = /tinyagents show (run-\S+)/.exec(demo.stdout)?.[1];
    expect(runId, demo.stdout).toBeDefined();
    expect(demo.stdout).toContain(`run id: ${runId}`);
    const show = await cli(["show", runId as string]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`run ${runId}`);
    expect(show.stdout).toMatch(/tool current_time \{"timezone":"Asia\/Tokyo"\} · ok/);
    expect(show.stdout).toContain("sub-agent");
    const runs = await cli(["runs"]);
    expect(runs.stdout).toContain(runId);
  });
});

describe("tinyagents chat", () => {
  it("exits 130 on Ctrl-C at the prompt (as docs/cli.md says), 0 on /exit", async () => {
    const stdin = new PassThrough(); // stays open: the chat waits at its prompt
    const signals = new EventEmitter();
    const chat = io({ stdin, signals });
    const done = main(["chat", "--thread", "t-sigint"], chat.io);
    await pressCtrlC(signals);
    expect(await done).toBe(130);
    expect(chat.out.stdout).toContain("thread t-sigint");

    expect((await cli(["chat", "--thread", "t-sigint"], { stdin: ["/exit\n"] })).code).toBe(0);
  });
});

describe("tinyagents --version", () => {
  it("prints the version of the installed package", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const v = await cli(["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toBe(`tinyagents ${version} (Node.js ${process.versions.node})\n`);
  });
});
