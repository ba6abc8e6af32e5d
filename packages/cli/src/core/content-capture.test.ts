import { join } from "node:path";
import type { AgentObservation } from "@tinyagents/harness";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";
import { describeCliRun } from "../commands/ui.js";
import { InspectorData } from "../ui/inspector-data.js";
import { openCliStore } from "./cli-store.js";
import { CAPTURE_CONTENT_ENV, captureContentSetting } from "./content-capture.js";

const { cli, home } = useCli("tinyagents-capture-");

/** The journal of every run a command printed the id of. */
async function journalOf(stdout: string): Promise<{ ids: string[]; observations: AgentObservation[] }> {
  const ids = [
    ...new Set([...stdout.matchAll(/\b(run-\d{8}-\d{6}-[0-9a-f]+)\b/g)].map((m) => m[1] as string)),
  ];
  expect(ids.length).toBeGreaterThan(0);
  const store = await openCliStore(join(home(), "tinyagents.db"));
  try {
    const observations = (await Promise.all(ids.map((id) => store.journal.read(id)))).flat();
    return { ids, observations };
  } finally {
    store.close();
  }
}

const PROMPT = "what time is it in Tokyo? Also compute 17 * 3";
/** The calculator's answer as text (not digits inside an id, a timestamp or a JSON number). */
const CALC_ANSWER = /(?<![\w.:-])51(?!\w|\.\d)/;

/** The journal as text, without the tools' static descriptions (which name "Asia/Tokyo" as an example). */
const journalText = (observations: readonly AgentObservation[]) =>
  JSON.stringify(observations, (key, value) => (key === "description" ? undefined : value));

describe("content capture of the CLI's runs", () => {
  it("journals the prompt, the answer, tool arguments and results by default", async () => {
    const run = await cli(["run", PROMPT, "--tools", "time,calc"]);
    expect(run.code).toBe(0);
    const { observations } = await journalOf(run.stdout);
    const text = JSON.stringify(observations);
    expect(text).toContain("what time is it in Tokyo");
    expect(text).toContain("Asia/Tokyo");
    expect(text).toMatch(CALC_ANSWER);
    expect(
      observations.some((o) => o.event.type === "tool.completed" && o.event.details?.result !== undefined),
    ).toBe(true);
  });

  it("--no-capture-content: no prompt, answer, tool arguments or results in the journal or the run record", async () => {
    const run = await cli(["run", PROMPT, "--tools", "time,calc", "--no-capture-content"]);
    expect(run.code).toBe(0);
    // The terminal still shows the answer: only what is stored changes.
    expect(run.stdout).toMatch(/In Asia\/Tokyo it is/);
    const { ids, observations } = await journalOf(run.stdout);
    const text = journalText(observations);
    for (const content of ["Tokyo", "what time", "17 * 3", "In Asia"]) expect(text).not.toContain(content);
    // The calculator's answer, 51, as text — not the digits inside a random id, a timestamp or a
    // JSON number such as `"durationMs":51` (which made this check fail now and then on main).
    expect(text).not.toMatch(CALC_ANSWER);
    const types = new Set(observations.map((o) => o.event.type));
    // The run's shape is all there: calls, tools, usage, the prompt-cache fingerprints.
    for (const type of [
      "run.started",
      "model.started",
      "tool.started",
      "tool.completed",
      "model.completed",
    ] as const)
      expect(types).toContain(type);
    // Usage is on each model.completed (the default journal has no separate usage.recorded).
    expect(observations.some((o) => o.event.type === "model.completed" && o.event.usage !== undefined)).toBe(
      true,
    );
    // Trace details (on the calls' own records) keep the fingerprints, not the content.
    expect(observations.some((o) => o.event.type === "model.started" && o.event.details !== undefined)).toBe(
      true,
    );
    for (const o of observations) {
      const e = o.event;
      if (e.type === "model.started" && e.details !== undefined) {
        expect(e.details.stablePrefix).toMatch(/^[0-9a-f]{16,}$/);
        expect(e.details.inputMessages).toBeUndefined();
      }
      if (e.type === "model.completed") expect(e.details?.outputMessages).toBeUndefined();
      if (e.type === "tool.completed") expect(e.details?.result).toBeUndefined();
      if (e.type === "tool.started") expect(e.arguments).toEqual({});
      if (e.type === "model.text_delta") expect(e.text).toBe("");
    }

    const runs = await cli(["runs"]);
    expect(runs.stdout).toMatch(new RegExp(`${ids[0]}.*\\(content not captured\\)`));
    const store = await openCliStore(join(home(), "tinyagents.db"));
    try {
      const record = await store.getRun(ids[0] as string);
      expect(record).toMatchObject({ prompt: "", captureContent: false });
      // Nor the agent's flags (its --system may be as private as a prompt).
      expect(record?.agent).toBeUndefined();
      const detail = await new InspectorData({ ...store, describeRun: describeCliRun(store) }).runDetail(
        ids[0] as string,
      );
      expect(detail?.contentCapture).toBe("turned_off");
      expect(detail?.contentCaptured).toBe(false);
      expect(detail?.transcript.filter((e) => e.kind === "message")).toEqual([]);
      expect(detail?.summary.tags).toEqual(["cli:run", "demo"]);
    } finally {
      store.close();
    }
  });

  it(`${CAPTURE_CONTENT_ENV}=0 turns it off for chat and for the demo (its sub-agent too)`, async () => {
    const off = { [CAPTURE_CONTENT_ENV]: "0" };
    const chat = await cli(["chat", "--tools", "time"], {
      env: off,
      stdin: ["what time is it in Tokyo?", "/exit"],
    });
    expect(chat.code).toBe(0);
    const demo = await cli(["demo"], { env: off });
    expect(demo.code).toBe(0);
    const chatRuns = await journalOf(chat.stdout);
    const demoRuns = await journalOf(demo.stdout);
    for (const { observations } of [chatRuns, demoRuns]) {
      expect(journalText(observations)).not.toContain("Tokyo");
      expect(observations.some((o) => o.event.type === "tool.started")).toBe(true);
    }
    expect(demoRuns.observations.some((o) => o.depth === 1)).toBe(true);
    expect(journalText(demoRuns.observations)).not.toContain("19 + 23");
    // The demo asks for structured output: its schema (with the answer's field names) is content.
    expect(journalText(demoRuns.observations)).not.toContain("tokyo_time");
  });

  it("reads the flag before the variable, and rejects an unclear value", async () => {
    expect(captureContentSetting({}, undefined)).toBe(true);
    expect(captureContentSetting({ [CAPTURE_CONTENT_ENV]: "false" }, undefined)).toBe(false);
    expect(captureContentSetting({ [CAPTURE_CONTENT_ENV]: "1" }, true)).toBe(false);
    expect(captureContentSetting({ [CAPTURE_CONTENT_ENV]: "yes" }, undefined)).toBe(true);
    const bad = await cli(["run", "hi"], { env: { [CAPTURE_CONTENT_ENV]: "maybe" } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${CAPTURE_CONTENT_ENV} must be 0`);
    expect(bad.stderr).toContain('got "maybe"');
  });
});
