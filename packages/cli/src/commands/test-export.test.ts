import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCassette, replayRun } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { cliAgent } from "../core/cli-agent.js";
import { demoAgent } from "./run-demo.js";

// `tinyagents test export` in process (the built-binary, vitest-in-a-child version is
// test/test-export.integration.test.ts): what it writes, what it refuses, and that the cassette
// replays against the agent the test rebuilds.

const { cli, home } = useCli("tinyagents-test-export-");

const runIdOf = (stdout: string) => /run id: (run-\S+)/.exec(stdout)?.[1] as string;

describe("tinyagents test export", () => {
  it("writes a demo run's cassette and test; the cassette replays against demoAgent()", async () => {
    expect((await cli(["demo"])).code).toBe(0);
    const out = await cli(["test", "export", "last", "--out", "replays", "--name", "demo-run"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(
      "wrote replays/demo-run.cassette.json (3 model calls) and replays/demo-run.replay.test.ts\nrun it: npx vitest run replays/demo-run.replay.test.ts\n",
    );
    const test = readFileSync(join(home(), "replays/demo-run.replay.test.ts"), "utf8");
    expect(test).toContain('import { demoAgent } from "tinyagents";');
    expect(test).toContain("const agent = demoAgent();");
    const cassette = parseCassette(readFileSync(join(home(), "replays/demo-run.cassette.json"), "utf8"));
    expect(cassette.source).toEqual({ kind: "cli", command: "demo", model: "demo" });
    expect(cassette.run.children?.[0]).toMatchObject({ agent: "research" });
    const report = await replayRun(demoAgent(), cassette);
    expect(report.result.structured).toMatchObject({ result: 84 });
  });

  it("rebuilds a `run` agent from its recorded flags", async () => {
    const run = await cli(["run", "what is 2 + 3?", "--system", "Be exact."]);
    expect(run.code).toBe(0);
    const out = await cli(["test", "export", runIdOf(run.stdout), "--out", "replays", "--name", "run-flags"]);
    expect(out.code).toBe(0);
    const test = readFileSync(join(home(), "replays/run-flags.replay.test.ts"), "utf8");
    expect(test).toContain('const agent = cliAgent({"model":"demo","system":"Be exact."});');
    const cassette = parseCassette(readFileSync(join(home(), "replays/run-flags.cassette.json"), "utf8"));
    await expect(
      replayRun(cliAgent({ model: "demo", system: "Be exact." }), cassette),
    ).resolves.toBeDefined();
    await expect(replayRun(cliAgent({ model: "demo", system: "Be vague." }), cassette)).rejects.toThrow(
      /^replay diverged at model call 1: system prompt changed \(line 1\)/,
    );
  });

  it("refuses what it cannot replay, saying why and what to do", async () => {
    expect((await cli(["test"])).code).toBe(2);
    expect((await cli(["test", "export"])).stderr).toMatch(/usage: tinyagents test export <run-id\|last>/);

    const unknown = await cli(["test", "export", "run-nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /run run-nope was not started by the CLI: name the module .* --module FILE/,
    );
    const missing = await cli(["test", "export", "run-nope", "--module", "agent.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no journaled run "run-nope"');

    const threaded = await cli(["run", "hello", "--thread", "t1"]);
    const onThread = await cli(["test", "export", runIdOf(threaded.stdout)]);
    expect(onThread.code).toBe(2);
    expect(onThread.stderr).toMatch(/continued thread "t1": its first request carries the thread's history/);

    const contentless = await cli(["demo", "--no-capture-content"]);
    const off = await cli(["test", "export", runIdOf(contentless.stdout)]);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/recorded without content \(--no-capture-content\)/);
  });
});
