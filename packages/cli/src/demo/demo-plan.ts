import type { JsonObject, ToolSchema } from "@tinyagents/inference";
import { zoneForText } from "./zone-lookup.js";

/** One tool call the demo model plans. */
export interface PlannedCall {
  name: string;
  arguments: JsonObject;
}

/**
 * The demo model's whole "reasoning": keyword rules over the prompt and the tools on offer,
 * giving stages of tool calls (calls in one stage run in parallel):
 * 1. a time question + `current_time` -> `current_time({ timezone })` (zone from a place name);
 *    numbers + `add` -> `add({ numbers })`; an arithmetic expression + `calculator` -> `calculator`;
 * 2. any `*_agent` tool (a sub-agent) -> called with the prompt.
 */
export function planStages(prompt: string, tools: readonly ToolSchema[]): PlannedCall[][] {
  const has = (name: string) => tools.some((t) => t.name === name);
  const first: PlannedCall[] = [];
  if (/\b(time|clock|o'clock|hour)\b/i.test(prompt) && has("current_time")) {
    const zone = zoneForText(prompt);
    first.push({ name: "current_time", arguments: zone === undefined ? {} : { timezone: zone } });
  }
  const expression = arithmeticIn(prompt);
  const numbers = numbersIn(prompt);
  if (has("calculator") && expression !== undefined)
    first.push({ name: "calculator", arguments: { expression } });
  else if (has("add") && numbers.length >= 2) first.push({ name: "add", arguments: { numbers } });
  const stages = first.length > 0 ? [first] : [];
  const agents = tools.filter((t) => t.name.endsWith("_agent"));
  if (agents.length > 0) stages.push(agents.map((t) => ({ name: t.name, arguments: { input: prompt } })));
  return stages;
}

/** Numbers written in the prompt, ignoring those that are part of a clock time or a zone. */
export function numbersIn(text: string): number[] {
  return (text.replace(/\d{1,2}:\d{2}/g, " ").match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
}

/** An arithmetic expression in the prompt (`(19 + 23) * 2`), if there is one with an operator. */
export function arithmeticIn(text: string): string | undefined {
  const candidates = text.match(/[\d.()\s+\-*/^%]+/g) ?? [];
  const found = candidates.map((c) => c.trim()).find((c) => /\d\s*[-+*/^%]\s*[\d(]/.test(c));
  return found;
}
