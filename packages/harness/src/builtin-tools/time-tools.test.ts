import type { JsonObject, JsonValue } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import type { AnyTool, ToolReturn } from "../tool/tool.js";
import { currentTimeTool } from "./current-time.js";
import { resolveTimeTool } from "./resolve-time.js";
import { parseTimeExpression } from "./time-expression.js";
import { civilToInstant, formatRfc3339, offsetMinutes } from "./time-zone.js";

const NOW = Date.parse("2025-03-10T12:34:56Z"); // a Monday

async function call(t: AnyTool, args: JsonObject): Promise<unknown> {
  const harness = new AgentHarness({ clock: new DeterministicClock({ start: NOW }) });
  const ctx = lowerLayer(harness).createContext({}, undefined);
  const validation = await t.validate(args);
  if (!validation.ok) throw new Error(validation.issues.join("; "));
  return t.execute(validation.value, {
    state: undefined,
    run: ctx,
    callId: "c1",
    signal: ctx.signal,
    progress: () => {},
  });
}

const errorText = (out: unknown): string => {
  const ret = out as ToolReturn;
  expect(ret.isError).toBe(true);
  return ret.content.map((b) => (b.type === "text" ? b.text : "")).join("");
};

describe("time zone helpers", () => {
  it("formats RFC 3339 in a zone and knows offsets", () => {
    expect(formatRfc3339(NOW, "UTC")).toBe("2025-03-10T12:34:56Z");
    expect(formatRfc3339(NOW, "Asia/Tokyo")).toBe("2025-03-10T21:34:56+09:00");
    expect(formatRfc3339(NOW, "Asia/Kolkata")).toBe("2025-03-10T18:04:56+05:30");
    expect(offsetMinutes(NOW, "America/New_York")).toBe(-240); // DST began 2025-03-09
  });

  it("rejects local times skipped or repeated by a DST change", () => {
    const gap = civilToInstant(
      { year: 2025, month: 3, day: 9, hour: 2, minute: 30, second: 0 },
      "America/New_York",
    );
    expect(gap).toEqual({ error: expect.stringContaining("does not exist") });
    const overlap = civilToInstant(
      { year: 2025, month: 11, day: 2, hour: 1, minute: 30, second: 0 },
      "America/New_York",
    );
    expect(overlap).toEqual({ error: expect.stringContaining("ambiguous") });
    const fine = civilToInstant(
      { year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0 },
      "Asia/Tokyo",
    );
    expect(fine).toEqual({ ms: Date.parse("2024-12-31T15:00:00Z") });
  });
});

describe("parseTimeExpression", () => {
  const ctx = { now: NOW, timeZone: "UTC" };
  const ms = (expr: string, timeZone = "UTC") => {
    const r = parseTimeExpression(expr, { ...ctx, timeZone });
    if (!r.ok) throw new Error(r.error);
    return r.ms;
  };

  it.each([
    ["now", NOW],
    ["in 10 minutes", NOW + 600_000],
    ["10 minutes from now", NOW + 600_000],
    ["2 weeks ago", NOW - 14 * 86_400_000],
    ["24h ago", NOW - 86_400_000],
    ["7d", NOW - 7 * 86_400_000],
    ["next 7d", NOW + 7 * 86_400_000],
    ["last 3 days", NOW - 3 * 86_400_000],
    ["+2h", NOW + 7_200_000],
    ["-1d", NOW - 86_400_000],
    ["in 1 hour 30 minutes", NOW + 5_400_000],
    ["today", Date.parse("2025-03-10T00:00:00Z")],
    ["yesterday", Date.parse("2025-03-09T00:00:00Z")],
    ["tomorrow", Date.parse("2025-03-11T00:00:00Z")],
    ["2025-03-01T14:30:00Z", Date.parse("2025-03-01T14:30:00Z")],
    ["2025-03-01T14:30:00.250+09:00", Date.parse("2025-03-01T05:30:00.250Z")],
    ["2025-03-01 14:30", Date.parse("2025-03-01T14:30:00Z")],
    ["2025-03-01", Date.parse("2025-03-01T00:00:00Z")],
    ["1700000000", 1_700_000_000_000],
  ])("%s", (expr, expected) => {
    expect(ms(expr)).toBe(expected);
  });

  it("interprets civil days and offset-less times in the given zone", () => {
    expect(ms("today", "Asia/Tokyo")).toBe(Date.parse("2025-03-10T00:00:00+09:00"));
    expect(ms("2025-03-01", "America/New_York")).toBe(Date.parse("2025-03-01T00:00:00-05:00"));
  });

  it.each(["", "next tuesday", "in 3 fortnights", "2025-02-30", "in 3 days ago", "2025-13-01T00:00:00Z"])(
    "refuses %j with a helpful message",
    (expr) => {
      const r = parseTimeExpression(expr, ctx);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toContain("Accepted:");
    },
  );
});

describe("current_time", () => {
  it("reports UTC, local, unix seconds and a requested zone", async () => {
    const out = (await call(currentTimeTool({ localTimeZone: "Europe/Paris" }), {
      timezone: "Asia/Tokyo",
    })) as JsonObject;
    expect(out).toEqual({
      utc: "2025-03-10T12:34:56Z",
      local: "2025-03-10T13:34:56+01:00",
      local_timezone: "Europe/Paris",
      unix_seconds: Math.floor(NOW / 1000),
      weekday: "Monday",
      requested_timezone: { name: "Asia/Tokyo", time: "2025-03-10T21:34:56+09:00", weekday: "Monday" },
    });
  });

  it("keeps succeeding with an unknown zone and says so", async () => {
    const out = (await call(currentTimeTool(), { timezone: "Mars/Olympus" })) as Record<string, JsonValue>;
    expect(out.requested_timezone_error).toContain("unknown time zone");
    expect(out.utc).toBe("2025-03-10T12:34:56Z");
  });

  it("declares a side-effect-free policy", () => {
    expect(currentTimeTool().policy).toEqual({ sideEffects: "none" });
    expect(resolveTimeTool().policy).toEqual({ sideEffects: "none" });
  });
});

describe("resolve_time", () => {
  const tool = resolveTimeTool({ defaultTimeZone: "UTC" });

  it("returns every format and the requested one as value", async () => {
    const out = await call(tool, { expr: "in 10 minutes", format: "rfc3339" });
    expect(out).toEqual({
      interpreted: "in 10 minutes",
      timezone: "UTC",
      value: "2025-03-10T12:44:56Z",
      unix_s: Math.floor(NOW / 1000) + 600,
      unix_ms: NOW + 600_000,
      slack_ts: `${Math.floor(NOW / 1000) + 600}.000000`,
      rfc3339: "2025-03-10T12:44:56Z",
    });
    expect(await call(tool, { expr: "now" })).toMatchObject({ value: Math.floor(NOW / 1000) });
    expect(await call(tool, { expr: "now", format: "unix_ms" })).toMatchObject({ value: NOW });
  });

  it("uses the zone for offset-less input and shows RFC 3339 in it", async () => {
    const out = await call(tool, { expr: "2025-01-01", timezone: "Asia/Tokyo", format: "rfc3339" });
    expect(out).toMatchObject({
      value: "2025-01-01T00:00:00+09:00",
      unix_s: Date.parse("2024-12-31T15:00:00Z") / 1000,
    });
  });

  it("returns errors as tool errors, never throws", async () => {
    expect(errorText(await call(tool, { expr: "whenever" }))).toContain("cannot read");
    expect(errorText(await call(tool, { expr: "now", timezone: "Nowhere/Land" }))).toContain(
      "unknown time zone",
    );
    expect(errorText(await call(tool, { expr: "  " }))).toContain("`expr` is required");
    expect(errorText(await call(tool, { expr: "2025-03-09 02:30", timezone: "America/New_York" }))).toContain(
      "does not exist",
    );
  });
});
