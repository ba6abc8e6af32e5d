import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { parseTimeExpression, TIME_EXPRESSION_HELP } from "./time-expression.js";
import { formatRfc3339, isValidTimeZone, localTimeZone } from "./time-zone.js";
import { toolError } from "./tool-error.js";

/** Output formats of `resolve_time`. */
export const TIME_FORMATS = ["unix_s", "unix_ms", "slack_ts", "rfc3339"] as const;

/** Options of {@link resolveTimeTool}. */
export interface ResolveTimeOptions {
  /** The zone for offset-less inputs when the call names none (default: this machine's zone). */
  defaultTimeZone?: string;
}

/**
 * `resolve_time`: turn a time expression (`now`, `in 10 minutes`, `2 weeks ago`, `today`,
 * RFC 3339, `YYYY-MM-DD`, ...) into a timestamp. Output: `interpreted`, `value` (in `format`:
 * `unix_s` default, `unix_ms`, `slack_ts`, `rfc3339`), and every format (`unix_s`, `unix_ms`,
 * `slack_ts`, `rfc3339`). Offset-less inputs and civil days use `timezone` (IANA). Bad input,
 * an unknown zone or an impossible/ambiguous local time is an error RESULT, never a throw.
 */
export function resolveTimeTool(options: ResolveTimeOptions = {}): Tool<unknown, unknown, JsonObject> {
  const fallbackZone = options.defaultTimeZone ?? localTimeZone();
  return tool({
    name: "resolve_time",
    description:
      "Resolve a time expression to a timestamp. Accepts " +
      TIME_EXPRESSION_HELP +
      ". Returns the value in `format` plus unix seconds/milliseconds, Slack ts and RFC 3339.",
    inputSchema: {
      type: "object",
      properties: {
        expr: { type: "string", description: "The time expression, e.g. `in 10 minutes` or `2025-03-01`" },
        format: { type: "string", enum: [...TIME_FORMATS], description: "Output format (default unix_s)" },
        timezone: { type: "string", description: "IANA zone for inputs without an offset, e.g. Asia/Tokyo" },
      },
      required: ["expr"],
      additionalProperties: false,
    },
    policy: { sideEffects: "none" },
    execute: (args, ctx) => {
      const expr = typeof args.expr === "string" ? args.expr : "";
      if (expr.trim() === "") return toolError("`expr` is required: the time expression to resolve");
      const zone =
        typeof args.timezone === "string" && args.timezone.trim() !== "" ? args.timezone.trim() : undefined;
      if (zone !== undefined && !isValidTimeZone(zone)) {
        return toolError(
          `unknown time zone ${JSON.stringify(zone)}; use an IANA name such as Asia/Tokyo, Europe/London or America/New_York`,
        );
      }
      const timeZone = zone ?? fallbackZone;
      const parsed = parseTimeExpression(expr, { now: ctx.run.clock.now(), timeZone });
      if (!parsed.ok) return toolError(parsed.error);
      const ms = parsed.ms;
      const all = {
        unix_s: Math.floor(ms / 1000),
        unix_ms: ms,
        slack_ts: `${Math.floor(ms / 1000)}.000000`,
        rfc3339: formatRfc3339(ms, zone ?? "UTC"),
      };
      const format = (
        typeof args.format === "string" ? args.format : "unix_s"
      ) as (typeof TIME_FORMATS)[number];
      return { interpreted: expr.trim(), timezone: timeZone, value: all[format], ...all };
    },
  });
}
