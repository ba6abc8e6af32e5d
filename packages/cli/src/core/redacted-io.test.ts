import { registerSecrets } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io.js";
import { rawOutput, redactedIo, SecretSafeStream } from "./redacted-io.js";

const SECRET = "split-secret-0a1b2c3d4e5f";
registerSecrets([SECRET]);

describe("SecretSafeStream", () => {
  it("masks a credential split across deltas; nothing of it is ever written", () => {
    const stream = new SecretSafeStream();
    const deltas = ["the key is split-sec", "ret-0a1b2", "c3d4e5f and", " that is all"];
    const written = deltas.map((d) => stream.push(d));
    written.push(stream.end());
    const text = written.join("");
    expect(text).toBe("the key is [REDACTED] and that is all");
    for (const piece of written) expect(piece).not.toContain("split-sec");
  });

  it("ordinary text comes out whole and in order", () => {
    const stream = new SecretSafeStream();
    const out = ["Hello, ", "world", "!"].map((d) => stream.push(d)).join("") + stream.end();
    expect(out).toBe("Hello, world!");
  });
});

describe("redactedIo", () => {
  it("masks credentials in every write to stdout and stderr, and keeps the raw stream reachable", () => {
    let stdout = "";
    let stderr = "";
    const target = { write: (c: string) => (stdout += c), isTTY: true };
    const io = redactedIo({
      stdout: target,
      stderr: { write: (c: string) => (stderr += c) },
      stdin: process.stdin,
      env: {},
      cwd: "/",
    } as CliIo);
    io.stdout.write(`using model at http://x/?key=${SECRET}\n`);
    io.stderr.write(`failed: ${SECRET}\n`);
    expect(stdout).toBe("using model at http://x/?key=[REDACTED]\n");
    expect(stderr).toBe("failed: [REDACTED]\n");
    expect(io.stdout.isTTY).toBe(true);
    expect(rawOutput(io.stdout)).toBe(target);
  });
});
