import { execFile } from "node:child_process";
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Issue 38, acceptance (a), end to end with the BUILT binary (`npm run build -w packages/harness
// -w packages/cli` first): `tinyagents demo` (journaled) -> `tinyagents test export last --out tmp`
// -> the exported test passes under vitest, offline; an edit of the agent's instructions fails it
// at model call 1 naming the line; an edit of one tool result in the cassette fails it at the
// request carrying that result; the same for a `tinyagents run` (its agent rebuilt from its flags).
// Budget: about 25 s on a loaded 2-core machine (two demos, a run, three exports, five vitest
// runs in child processes), each test bounded by its timeout.

const root = fileURLToPath(new URL("../../..", import.meta.url));
const bin = join(root, "packages/cli/dist/bin.js");
const vitestBin = join(root, "node_modules/vitest/vitest.mjs");

let project: string;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "tinyagents-replay-"));
  // A user's project: the exported test imports `tinyagents` and `@tinyagents/harness/testkit`.
  symlinkSync(join(root, "node_modules"), join(project, "node_modules"), "dir");
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

/** No API keys, no network (port 1 refuses), a temp store. */
const env = () => ({
  PATH: process.env.PATH ?? "",
  HOME: project,
  TINYAGENTS_HOME: join(project, "home"),
  OLLAMA_HOST: "127.0.0.1:1",
  TINYAGENTS_DEMO_DELAY_MS: "0",
});

function exec(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: project, env: env(), encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

const tinyagents = (...args: string[]) => exec([bin, ...args]);
const vitest = (dir = "tmp/") => exec([vitestBin, "run", dir, "--root", project]);

describe("tinyagents test export (built binary)", () => {
  it("a demo run becomes a passing replay test; an instruction edit and a tool-result edit fail it", async () => {
    const demo = await tinyagents("demo");
    expect(demo.code).toBe(0);
    const exported = await tinyagents("test", "export", "last", "--out", "tmp");
    expect(exported.out).toMatch(
      /wrote tmp\/\S+\.cassette\.json \(3 model calls\) and tmp\/\S+\.replay\.test\.ts/,
    );
    expect(exported.code).toBe(0);
    const files = readdirSync(join(project, "tmp"));
    const testFile = join(project, "tmp", files.find((f) => f.endsWith(".replay.test.ts")) as string);
    const cassetteFile = join(project, "tmp", files.find((f) => f.endsWith(".cassette.json")) as string);

    const passing = await vitest();
    expect(passing.out).toMatch(/1 passed/);
    expect(passing.code).toBe(0);

    // One edit to the agent's instructions: fails at model call 1, naming the instruction line.
    const original = readFileSync(testFile, "utf8");
    writeFileSync(
      testFile,
      original.replace(
        "demoAgent()",
        'demoAgent({ instructions: "You are a helpful assistant.\\nUse tools sparingly." })',
      ),
    );
    const edited = await vitest();
    expect(edited.code).not.toBe(0);
    expect(edited.out).toContain(
      'replay diverged at model call 1: system prompt changed (line 1): was "You are a helpful assistant. Use tools; delegate checks to the research agent.", now "You are a helpful assistant."',
    );
    writeFileSync(testFile, original);

    // One edited tool result in the cassette: fails at the request that carries it, with the diff.
    const cassette = JSON.parse(readFileSync(cassetteFile, "utf8")) as {
      run: { toolCalls: { callId: string; name: string; result: { result: number } }[] };
    };
    const calc = cassette.run.toolCalls.find((c) => c.name === "calculator");
    if (calc === undefined) throw new Error("the demo run has no calculator call");
    calc.result.result = 85;
    writeFileSync(cassetteFile, JSON.stringify(cassette, null, 2));
    const tampered = await vitest();
    expect(tampered.code).not.toBe(0);
    expect(tampered.out).toMatch(
      new RegExp(
        `replay diverged at model call 2: message \\d differs: tool result of ${calc.callId}: .*was .*\\\\"result\\\\":84.*now .*\\\\"result\\\\":85`,
      ),
    );
  }, 60_000);

  it("a `run` becomes a test that rebuilds the agent of its flags; a changed --system line fails it", async () => {
    const ran = await tinyagents(
      "run",
      "what time is it in Tokyo?",
      "--tools",
      "time",
      "--system",
      "Be brief.\nAnswer in English.",
    );
    expect(ran.code).toBe(0);
    const exported = await tinyagents("test", "export", "last", "--out", "tmp3");
    expect(exported.code).toBe(0);
    const file = join(
      project,
      "tmp3",
      readdirSync(join(project, "tmp3")).find((f) => f.endsWith(".test.ts")) as string,
    );
    const original = readFileSync(file, "utf8");
    expect(original).toContain(
      'cliAgent({"model":"demo","system":"Be brief.\\nAnswer in English.","tools":["time"]})',
    );
    const passing = await vitest("tmp3/");
    expect(passing.out).toMatch(/1 passed/);
    writeFileSync(file, original.replace("Answer in English.", "Answer in French."));
    const edited = await vitest("tmp3/");
    expect(edited.code).not.toBe(0);
    expect(edited.out).toContain(
      'replay diverged at model call 1: system prompt changed (line 2): was "Answer in English.", now "Answer in French."',
    );
  }, 30_000);

  it("refuses a run recorded with --no-capture-content and says which switch records it", async () => {
    expect((await tinyagents("demo", "--no-capture-content")).code).toBe(0);
    const refused = await tinyagents("test", "export", "last", "--out", "tmp2");
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(
      /recorded without content \(--no-capture-content\).*run it again without --no-capture-content/,
    );
  }, 30_000);
});
