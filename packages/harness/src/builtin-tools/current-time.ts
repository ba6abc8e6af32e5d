import type { JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { civilAt, formatRfc3339, isValidTimeZone, localTimeZone } from "./time-zone.js";

/** Options of {@link currentTimeTool}. */
export interface CurrentTimeOptions {
  /** The zone reported as `local` (default: this machine's zone). */
  localTimeZone?: string;
}

/**
 * `current_time`: the current time from the run's clock — `utc` (RFC 3339), `local` and
 * `local_timezone`, `unix_seconds`, `weekday`; with a `timezone` argument (IANA name such as
 * `Asia/Tokyo`) also `requested_timezone { name, time, weekday }`, or `requested_timezone_error`
 * when the zone is unknown (the call still succeeds). Policy: no side effects.
 */
export function currentTimeTool(options: CurrentTimeOptions = {}): Tool<unknown, unknown, JsonObject> {
  const local = options.localTimeZone ?? localTimeZone();
  return tool({
    name: "current_time",
    description:
      "Get the current date and time (UTC, this machine's local zone, unix seconds and weekday). " +
      "Pass `timezone` (an IANA name such as Asia/Tokyo or America/New_York) for the time there.",
    inputSchema: {
      type: "object",
      properties: {
        timezone: { type: "string", description: "IANA time zone name, e.g. Europe/Paris" },
      },
      additionalProperties: false,
    },
    policy: { sideEffects: "none" },
    idempotent: true,
    execute: (args, ctx) => {
      const now = ctx.run.clock.now();
      const out: JsonObject = {
        utc: formatRfc3339(now, "UTC"),
        local: formatRfc3339(now, local),
        local_timezone: local,
        unix_seconds: Math.floor(now / 1000),
        weekday: civilAt(now, local).weekday,
      };
      const zone = typeof args.timezone === "string" ? args.timezone.trim() : undefined;
      if (zone !== undefined && zone !== "") {
        if (isValidTimeZone(zone)) {
          out.requested_timezone = {
            name: zone,
            time: formatRfc3339(now, zone),
            weekday: civilAt(now, zone).weekday,
          };
        } else {
          out.requested_timezone_error = `unknown time zone ${JSON.stringify(zone)}; use an IANA name such as Asia/Tokyo, Europe/London or America/New_York`;
        }
      }
      return out;
    },
  });
}
