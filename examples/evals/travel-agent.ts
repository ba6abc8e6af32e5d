/**
 * The agent under evaluation: a travel assistant with two tools. Offline, a scripted model plays
 * the LLM, one script per case (what a model would answer); set TINYAGENTS_MODEL=provider:model
 * to evaluate a real one instead.
 */
import { createAgent, tool } from "@tinyagents/harness";
import type { EvalCase } from "@tinyagents/harness/evals";
import { ScriptedModel, type ScriptStep } from "@tinyagents/harness/testkit";
import { type ChatModel, fromEnv, usage } from "@tinyagents/inference";
import { z } from "zod";

const WEATHER: Record<string, { celsius: number; sky: string }> = {
  Lisbon: { celsius: 21, sky: "sunny" },
  Tokyo: { celsius: 16, sky: "cloudy" },
  Porto: { celsius: 14, sky: "light rain" },
};
const RATES: Record<string, number> = { "USD:EUR": 0.92, "EUR:JPY": 162.5 };

const getWeather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  policy: { sideEffects: "read" },
  execute: async ({ city }) => ({ city, ...(WEATHER[city] ?? { celsius: 18, sky: "clear" }) }),
});

const convertCurrency = tool({
  name: "convert_currency",
  description: "Convert an amount between currencies (ISO codes)",
  inputSchema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
  policy: { sideEffects: "read" },
  execute: async ({ amount, from, to }) => {
    const rate = RATES[`${from}:${to}`];
    if (rate === undefined) throw new Error(`no rate for ${from} -> ${to}`);
    return { amount, from, to, result: Math.round(amount * rate * 100) / 100 };
  },
});

/** What the scripted "LLM" answers per case. Porto's script has a bug on purpose: the wrong city. */
const SCRIPTS: Record<string, ScriptStep[]> = {
  "weather-lisbon": [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
    "It is sunny in Lisbon, 21 °C.",
  ],
  "convert-usd": [
    { toolCalls: [{ name: "convert_currency", arguments: { amount: 100, from: "USD", to: "EUR" } }] },
    "100 USD is about 92 EUR.",
  ],
  "capital-france": ["Paris"],
  "weather-and-money": [
    {
      toolCalls: [
        { name: "get_weather", arguments: { city: "Tokyo" } },
        { name: "convert_currency", arguments: { amount: 50, from: "EUR", to: "JPY" } },
      ],
    },
    "Tokyo is cloudy at 16 °C, and 50 EUR is about 8,125 JPY.",
  ],
  greeting: ["Hi! I can help with weather and currency conversions for your trip."],
  "weather-porto": [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
    "It is sunny, 21 °C.",
  ],
};

/** A fresh agent per run (a scripted model holds its place in the script). */
export function travelAgent(evalCase: EvalCase) {
  const live = process.env.TINYAGENTS_MODEL;
  const model: ChatModel =
    live !== undefined && live.trim() !== ""
      ? fromEnv()
      : new ScriptedModel(SCRIPTS[evalCase.id] ?? ["I don't know."], {
          modelId: "travel-scripted",
          usage: usage({ inputTokens: 180, outputTokens: 24 }),
        });
  return createAgent({
    model,
    pricing: { inputPerMillion: 0.4, outputPerMillion: 1.6 },
    instructions: "You are a concise travel assistant. Use tools for weather and money.",
    tools: [getWeather, convertCurrency],
  });
}
