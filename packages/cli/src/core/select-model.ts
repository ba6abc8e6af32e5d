import {
  type ChatModel,
  createModel,
  displayUrl,
  type FetchLike,
  KNOWN_PROVIDERS,
  PRESETS,
} from "@tinyagents/inference";
import { DemoModel } from "../demo/demo-model.js";
import { CliError, usageError } from "./cli-error.js";
import { EXIT } from "./exit-codes.js";

/** The model a command will use, and how it was chosen. */
export interface SelectedModel {
  model: ChatModel;
  /** `provider:model` (or `demo`). */
  spec: string;
  /** True for the offline demo model (scripted, not an LLM). */
  isDemo: boolean;
  /** One line telling the user what was chosen when it was not given explicitly (print to stderr). */
  notice?: string;
}

/** Options of {@link selectModel}. */
export interface SelectModelOptions {
  /** `--model` */
  model?: string | undefined;
  /**
   * `--base-url`: the endpoint of the model. With a `provider:` prefix it overrides that preset's
   * URL; a model id without a known prefix is served over the OpenAI-compatible wire
   * (`compatible:`), so any such server (vLLM, llama.cpp, LM Studio, a proxy) works with one flag.
   */
  baseUrl?: string | undefined;
  /** `--api-key-env`: the name of the environment variable holding the API key. */
  apiKeyEnv?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: FetchLike;
  /** Look for a local Ollama server (default true). */
  probeLocal?: boolean;
  /** Word-by-word delay of the demo model's stream (default 15 ms). */
  demoDelayMs?: number;
}

/** Hosted providers tried, in order, when only an API key is set. */
const KEYED_PROVIDERS = [
  "openai",
  "anthropic",
  "groq",
  "deepseek",
  "mistral",
  "xai",
  "openrouter",
  "together",
] as const;

const DEMO_SPECS = new Set(["demo", "demo:offline", "demo:offline-demo"]);

/** True for a spec naming the offline demo model (`demo`, `demo:offline`, ...). */
export function isDemoSpec(spec: string): boolean {
  return DEMO_SPECS.has(spec.trim().toLowerCase());
}

/**
 * Pick the model: `--model`, else `TINYAGENTS_MODEL`, else the first hosted provider whose API
 * key variable is set (its default model), else a local Ollama server (its first model), else the
 * offline demo model — announced in one clear line, never passed off as a real model.
 * `createModel` errors (unknown provider: lists the known ones; missing key: names the variable)
 * propagate.
 */
export async function selectModel(options: SelectModelOptions): Promise<SelectedModel> {
  const demo = (notice?: string): SelectedModel => {
    const selected: SelectedModel = {
      model: new DemoModel(options.demoDelayMs === undefined ? {} : { delayMs: options.demoDelayMs }),
      spec: "demo",
      isDemo: true,
    };
    if (notice !== undefined) selected.notice = notice;
    return selected;
  };
  const explicit = options.model ?? nonEmpty(options.env.TINYAGENTS_MODEL);
  const apiKey = apiKeyFrom(options);
  const baseUrl = nonEmpty(options.baseUrl);
  if (baseUrl !== undefined) {
    if (explicit === undefined || DEMO_SPECS.has(explicit.trim().toLowerCase())) {
      throw usageError(
        `--base-url needs --model: the id of a model that ${displayUrl(baseUrl)} serves (for example --model qwen3:8b)`,
      );
    }
    const trimmed = explicit.trim();
    const prefix = trimmed.includes(":") ? trimmed.slice(0, trimmed.indexOf(":")).toLowerCase() : undefined;
    const spec = prefix !== undefined && KNOWN_PROVIDERS.includes(prefix) ? trimmed : `compatible:${trimmed}`;
    return {
      model: createModel(spec, { env: options.env, fetch: options.fetch, baseUrl, apiKey }),
      spec,
      isDemo: false,
      notice: `using ${spec} at ${displayUrl(baseUrl)}${apiKey === undefined ? "" : ` (API key from ${options.apiKeyEnv})`}`,
    };
  }
  if (explicit !== undefined) {
    if (DEMO_SPECS.has(explicit.trim().toLowerCase())) {
      return demo("using the offline demo model (scripted, not an LLM)");
    }
    return {
      model: createModel(explicit, { env: options.env, fetch: options.fetch, apiKey }),
      spec: explicit.trim(),
      isDemo: false,
    };
  }
  if (apiKey !== undefined) {
    throw usageError(`--api-key-env ${options.apiKeyEnv} needs --model (or TINYAGENTS_MODEL) or --base-url`);
  }
  for (const provider of KEYED_PROVIDERS) {
    const preset = PRESETS[provider];
    if (preset.apiKeyEnv !== undefined && nonEmpty(options.env[preset.apiKeyEnv]) !== undefined) {
      const spec = `${provider}:${preset.defaultModel}`;
      return {
        model: createModel(spec, { env: options.env, fetch: options.fetch }),
        spec,
        isDemo: false,
        notice: `using ${spec} (${preset.apiKeyEnv} is set; choose another with --model or TINYAGENTS_MODEL)`,
      };
    }
  }
  if (options.probeLocal !== false) {
    const local = await findOllamaModel(options.env, options.fetch);
    if (local !== undefined) {
      const spec = `ollama:${local.model}`;
      return {
        model: createModel(spec, { env: options.env, fetch: options.fetch }),
        spec,
        isDemo: false,
        notice: `using ${spec} from the local Ollama server at ${local.url} (choose another with --model)`,
      };
    }
  }
  return demo(
    "no model configured (no --model, no TINYAGENTS_MODEL, no provider API key, no local Ollama server): " +
      "using the offline demo model — scripted, NOT an LLM. For real answers set TINYAGENTS_MODEL=provider:model (e.g. openai:gpt-4.1-mini) and its API key.",
  );
}

/** The first model of a local Ollama server (`OLLAMA_HOST` or localhost:11434), if one answers within 300 ms. */
async function findOllamaModel(
  env: Readonly<Record<string, string | undefined>>,
  fetchImpl: FetchLike | undefined,
): Promise<{ url: string; model: string } | undefined> {
  let base = nonEmpty(env.OLLAMA_HOST) ?? "http://127.0.0.1:11434";
  if (!/^https?:\/\//i.test(base)) base = `http://${base}`;
  base = base.replace(/\/+$/, "").replace(/\/v1$/, "");
  try {
    const response = await (fetchImpl ?? fetch)(`${base}/api/tags`, { signal: AbortSignal.timeout(300) });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { models?: { name?: unknown }[] };
    const name = body.models?.find((m) => typeof m.name === "string")?.name;
    return typeof name === "string" ? { url: base, model: name } : undefined;
  } catch {
    return undefined;
  }
}

/** The key named by `--api-key-env`; a config error (naming the variable, never its value) when unset. */
function apiKeyFrom(options: SelectModelOptions): string | undefined {
  const name = options.apiKeyEnv?.trim();
  if (name === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw usageError(
      `--api-key-env takes the NAME of an environment variable (for example MY_API_KEY), not the key itself`,
    );
  }
  const value = nonEmpty(options.env[name]);
  if (value === undefined)
    throw new CliError(
      `--api-key-env ${name}: the environment variable ${name} is not set or empty`,
      EXIT.config,
    );
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
