import { describe, expect, it } from "vitest";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import { AnthropicModel } from "../anthropic/anthropic-model.js";
import { DEFAULT_ANTHROPIC_MODEL } from "../anthropic/anthropic-options.js";
import { createModel, fromEnv, inferProvider, KNOWN_PROVIDERS } from "../create-model.js";
import { OpenAiChatModel } from "./openai-chat-model.js";
import {
  anthropicCompatible,
  compatible,
  deepseek,
  groq,
  llamaCpp,
  lmStudio,
  mistral,
  ollamaCompatible,
  openai,
  openrouter,
  PRESETS,
  together,
  vllm,
  xai,
} from "./presets.js";

const KEYS = {
  OPENAI_API_KEY: "sk-o",
  DEEPSEEK_API_KEY: "sk-d",
  ANTHROPIC_API_KEY: "sk-a",
  GROQ_API_KEY: "gsk-g",
  XAI_API_KEY: "xai-x",
  OPENROUTER_API_KEY: "sk-or",
  TOGETHER_API_KEY: "tk",
  MISTRAL_API_KEY: "mk",
};

describe("presets", () => {
  it.each([
    [openai, "openai", "https://api.openai.com/v1", "gpt-4.1-mini"],
    [deepseek, "deepseek", "https://api.deepseek.com/v1", "deepseek-chat"],
    [anthropicCompatible, "anthropic", "https://api.anthropic.com/v1", DEFAULT_ANTHROPIC_MODEL],
    [groq, "groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile"],
    [xai, "xai", "https://api.x.ai/v1", "grok-4"],
    [openrouter, "openrouter", "https://openrouter.ai/api/v1", "openai/gpt-4o-mini"],
    [together, "together", "https://api.together.xyz/v1", "meta-llama/Llama-3.3-70B-Instruct-Turbo"],
    [mistral, "mistral", "https://api.mistral.ai/v1", "mistral-small-latest"],
    [ollamaCompatible, "ollama", "http://localhost:11434/v1", "llama3.2"],
  ] as const)("%o -> %s", (preset, provider, baseUrl, model) => {
    const m = preset({ env: KEYS });
    expect(m).toBeInstanceOf(OpenAiChatModel);
    expect([m.provider, m.baseUrl, m.modelId]).toEqual([provider, baseUrl, model]);
  });

  it("the Anthropic preset defaults to the native adapter's model", () => {
    expect(PRESETS.anthropic.defaultModel).toBe(DEFAULT_ANTHROPIC_MODEL);
    const native = new AnthropicModel({ env: { ANTHROPIC_API_KEY: "sk-a" } });
    expect(anthropicCompatible({ env: KEYS }).modelId).toBe(native.modelId);
    // What the CLI builds when only ANTHROPIC_API_KEY is set: the preset's default, natively.
    const picked = createModel(`anthropic:${PRESETS.anthropic.defaultModel}`, { env: KEYS });
    expect(picked).toBeInstanceOf(AnthropicModel);
    expect(picked.modelId).toBe(native.modelId);
  });

  it("a missing key is a validation error naming the variable", () => {
    for (const [name, spec] of Object.entries(PRESETS)) {
      if (!spec.keyRequired) continue;
      let error: unknown;
      try {
        createModel(`${name}:some-model`, { env: {} });
      } catch (e) {
        error = e;
      }
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as Error).message).toContain(spec.apiKeyEnv!);
    }
    expect(() => openai({ env: {} })).toThrow(/OPENAI_API_KEY/);
    expect(() => anthropicCompatible({ env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("reads base-URL overrides; local presets need no key but some need a model", () => {
    expect(openai({ env: { ...KEYS, OPENAI_BASE_URL: "https://proxy.example/v1/" } }).baseUrl).toBe(
      "https://proxy.example/v1",
    );
    expect(ollamaCompatible({ env: { OLLAMA_HOST: "10.0.0.5:11434" } }).baseUrl).toBe(
      "http://10.0.0.5:11434/v1",
    );
    expect(anthropicCompatible({ env: { ...KEYS, ANTHROPIC_BASE_URL: "https://gw.example" } }).baseUrl).toBe(
      "https://gw.example/v1",
    );
    expect(vllm({ model: "m", env: { VLLM_BASE_URL: "http://gpu:8000" } }).baseUrl).toBe(
      "http://gpu:8000/v1",
    );
    expect(lmStudio({ model: "qwen" }).baseUrl).toBe("http://localhost:1234/v1");
    expect(llamaCpp({ model: "x" }).baseUrl).toBe("http://localhost:8080/v1");
    expect(() => llamaCpp({})).toThrow(/no model given/);
    expect(mistral({ env: KEYS }).quirks.toolCallIds).toBe("mistral9");
    expect(xai({ env: KEYS }).quirks.completionExcludesReasoning).toBe(true);
    expect(deepseek({ env: KEYS, model: "deepseek-reasoner" }).quirks.reasoningEcho).toBe("none");
    expect(deepseek({ env: KEYS }).quirks.reasoningEcho).toBe("reasoning_content");
  });

  it("compatible(baseUrl, model) needs an http(s) URL", () => {
    const m = compatible("http://localhost:9000/v1", "my-model", { provider: "local" });
    expect([m.provider, m.baseUrl, m.modelId]).toEqual(["local", "http://localhost:9000/v1", "my-model"]);
    expect(() => compatible("localhost:9000", "m")).toThrow(/must be an absolute http\(s\) URL/);
  });
});

describe("createModel", () => {
  it("parses provider:model, splitting on the first colon only", () => {
    const m = createModel("ollama:qwen3:8b", { env: {} }) as OpenAiChatModel;
    expect([m.provider, m.modelId]).toEqual(["ollama", "qwen3:8b"]);
    expect((createModel("openrouter:openai/gpt-4o", { env: KEYS }) as OpenAiChatModel).modelId).toBe(
      "openai/gpt-4o",
    );
    expect(createModel("llama.cpp:qwen", { env: {} }).provider).toBe("llamacpp");
    expect(createModel("compatible:x", { baseUrl: "http://h/v1" }).provider).toBe("compatible");
    expect(() => createModel("compatible:x")).toThrow(/needs \{ baseUrl \}/);
  });

  it.each([
    ["gpt-4.1", "openai"],
    ["o3-mini", "openai"],
    ["o4-mini", "openai"],
    ["claude-sonnet-4-5", "anthropic"],
    ["deepseek-reasoner", "deepseek"],
    ["grok-4", "xai"],
    ["mistral-large-latest", "mistral"],
    ["codestral-latest", "mistral"],
  ])("infers %s -> %s", (id, provider) => {
    expect(inferProvider(id)).toBe(provider);
    expect(createModel(id, { env: KEYS }).provider).toBe(provider);
  });

  it("uses the native Anthropic adapter for claude models", () => {
    expect(createModel("claude-sonnet-4-5", { env: KEYS })).toBeInstanceOf(AnthropicModel);
    expect(createModel("anthropic:claude-haiku-4-5", { env: KEYS }).modelId).toBe("claude-haiku-4-5");
  });

  it("unknown providers and empty specs are validation errors listing the known providers", () => {
    for (const spec of ["llama3", "foo:bar", ""]) {
      let error: unknown;
      try {
        createModel(spec, { env: KEYS });
      } catch (e) {
        error = e;
      }
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as Error).message).toContain(KNOWN_PROVIDERS.join(", "));
    }
    expect(() => createModel("openai:", { env: KEYS })).toThrow(/names no model/);
  });

  it("fromEnv reads TINYAGENTS_MODEL", () => {
    expect(fromEnv({ env: { ...KEYS, TINYAGENTS_MODEL: "groq:llama-3.1-8b-instant" } }).modelId).toBe(
      "llama-3.1-8b-instant",
    );
    expect(() => fromEnv({ env: {} })).toThrow(/TINYAGENTS_MODEL/);
  });
});
