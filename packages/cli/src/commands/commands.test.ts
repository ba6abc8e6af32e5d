import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { openCliStore } from "../core/cli-store.js";

const { cli, home } = useCli("tinyagents-cli-");

describe("tinyagents run (offline, demo model)", () => {
  it("answers 'what time is it in Tokyo?' with the time tool, journals it, and show renders it", async () => {
    const run = await cli(["run", "what time is it in Tokyo?", "--tools", "time"]);
    expect(run.code).toBe(0);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("offline demo model");
    expect(run.stderr).toContain("NOT an LLM");
    expect(run.stdout).toMatch(/-> current_time\(\{"timezone":"Asia\/Tokyo"\}\) ok in \d+ ms/);
    expect(run.stdout).toMatch(/In Asia\/Tokyo it is \d\d:\d\d on \w+day/);
    expect(run.stdout).toMatch(/model calls: 2 {3}tool calls: 1/);
    expect(run.stdout).toMatch(/tokens: \d+ in \(0 cached\), \d+ out \(0 reasoning\)/);
    const runId = /run id: (run-\S+)/.exec(run.stdout)?.[1];
    expect(runId).toBeDefined();

    const show = await cli(["show", runId as string]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`run ${runId}`);
    expect(show.stdout).toMatch(/model call 1 · demo · .* -> 1 tool call/);
    expect(show.stdout).toMatch(/ {4}tool current_time \{"timezone":"Asia\/Tokyo"\} · ok · \d+ ms/);
    expect(show.stdout).toMatch(/model call 2 · demo · .*\$0\.000000 · -> stop/);
    expect(show.stdout).toMatch(/run completed · 2 model calls · 1 tool call/);

    const raw = await cli(["show", runId as string, "--json"]);
    const observations = raw.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(observations[0].event.type).toBe("run.started");
    expect(observations.at(-1).event.type).toBe("run.completed");

    const runs = await cli(["runs"]);
    expect(runs.stdout).toContain(runId);
    expect(runs.stdout).toContain('"what time is it in Tokyo?"');
    expect((await cli(["show", "last"])).stdout).toContain("run ");
  });

  it("prints one JSON object with --json", async () => {
    const { code, stdout } = await cli(["run", "--json", "--tools", "calc", "what is (19 + 23) * 2?"]);
    expect(code).toBe(0);
    const body = JSON.parse(stdout);
    expect(body).toMatchObject({ model: "demo", modelCalls: 2, toolCalls: 1, stopReason: "completed" });
    expect(body.answer).toContain("(19 + 23) * 2 = 84");
    expect(body.cost.total).toBe(0);
  });

  it("reads the prompt from stdin", async () => {
    const { code, stdout } = await cli(["run", "--tools", "time"], {
      stdin: ["what time is it in Paris?\n"],
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Europe/Paris");
  });
});

describe("tinyagents chat (piped stdin)", () => {
  it("runs two turns on a thread that persists in the store", async () => {
    const turns = ["what time is it in Tokyo?\n", "thanks, and who are you?\n", "/cost\n", "/tools\n"];
    const first = await cli(["chat", "--thread", "t-chat", "--tools", "time"], { stdin: turns });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("thread t-chat");
    expect(first.stdout).toContain("you> what time is it in Tokyo?");
    expect(first.stdout).toMatch(/In Asia\/Tokyo it is/);
    expect(first.stdout).toContain('your previous message was "what time is it in Tokyo?"');
    expect(first.stdout).toMatch(/\(2 turns · 3 model calls · .* · cost \$0\.000000\)/);
    expect(first.stdout).toContain("current_time [built-in; none]");

    const store = await openCliStore(join(home(), "tinyagents.db"));
    try {
      const history = await store.history.load("t-chat");
      expect(history.filter((m) => m.role === "user")).toHaveLength(2);
      const threadRuns = await store.statusStore.list({ threadId: "t-chat" });
      expect(threadRuns.filter((s) => s.component === "agent" && s.parentRunId === undefined)).toHaveLength(
        2,
      );
    } finally {
      store.close();
    }

    const again = await cli(["chat", "--thread", "t-chat"], {
      stdin: ["hello?\n", "/reset\n", "hello again\n"],
    });
    expect(again.stdout).toContain("(6 earlier messages)");
    expect(again.stdout).toContain('your previous message was "thanks, and who are you?"');
    expect(again.stdout).toContain("(thread t-chat cleared)");
    expect(again.stdout).toContain("This is the first message of the thread.");
    expect((await cli(["runs", "--thread", "t-chat"])).stdout.trim().split("\n")).toHaveLength(4);
  });
});

describe("errors a user can act on", () => {
  it("names the missing key variable", async () => {
    const { code, stderr } = await cli(["run", "hi", "--model", "openai:gpt-4.1-mini"]);
    expect(code).toBe(3);
    expect(stderr).toContain("OPENAI_API_KEY");
  });

  it("lists the known providers for an unknown one", async () => {
    const { code, stderr } = await cli(["run", "hi", "--model", "nope:model-x"]);
    expect(code).toBe(3);
    expect(stderr).toMatch(/openai, deepseek, anthropic/);
  });

  it("names the URL of an unreachable endpoint", async () => {
    const { code, stderr } = await cli(["run", "hi", "--model", "ollama:llama3.2"], {
      env: { OLLAMA_HOST: "127.0.0.1:1" },
    });
    expect(code).toBe(4);
    expect(stderr).toContain("127.0.0.1:1");
  });

  it("uses TINYAGENTS_MODEL", async () => {
    const { code, stderr } = await cli(["run", "hi"], { env: { TINYAGENTS_MODEL: "demo" } });
    expect(code).toBe(0);
    expect(stderr).toContain("offline demo model");
  });

  it("rejects bad command lines with exit code 2", async () => {
    expect((await cli(["frobnicate"])).code).toBe(2);
    expect((await cli(["run"])).stderr).toContain("run needs a prompt");
    expect((await cli(["run", "hi", "--tools", "teleport"])).stderr).toContain("known: time, fs, calc, http");
    expect((await cli(["run", "hi", "--tools", "http"])).stderr).toContain("--allow-host");
    expect((await cli(["run", "hi", "--bogus"])).code).toBe(2);
    expect((await cli(["show"])).code).toBe(2);
    expect((await cli(["show", "run-missing"])).stderr).toContain('no journal for run "run-missing"');
  });

  it("has --help for every command", async () => {
    for (const command of ["run", "chat", "runs", "show", "probe", "demo"]) {
      const { code, stdout } = await cli([command, "--help"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`tinyagents ${command}`);
    }
    expect((await cli(["--help"])).stdout).toContain("Exit codes:");
  });

  it("probe reports an unreachable endpoint with exit code 4", async () => {
    const { code, stderr } = await cli([
      "probe",
      "http://127.0.0.1:1/v1",
      "--model",
      "m",
      "--timeout-ms",
      "2000",
    ]);
    expect(code).toBe(4);
    expect(stderr).toContain("could not reach http://127.0.0.1:1/v1");
  });
});
