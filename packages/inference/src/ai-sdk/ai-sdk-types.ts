/**
 * The part of the AI SDK language-model specification (`@ai-sdk/provider`, versions `v2` and
 * `v3`) this bridge uses, written structurally so the bridge needs no runtime import of the
 * package and accepts a model of either version. Results are read defensively at runtime
 * (`unknown` where the versions differ: usage, finish reason, stream parts).
 */

/** Any AI SDK `LanguageModelV2` or `LanguageModelV3` (for example `anthropic("claude-sonnet-4-5")`). */
export interface AiSdkLanguageModel {
  readonly specificationVersion: string;
  /** `openai.chat`, `anthropic.messages`, `google.generative-ai`, `deepseek.chat`, ... */
  readonly provider: string;
  readonly modelId: string;
  // The parameter is `never` so that both specifications' models fit: v2 and v3 declare
  // different call-option types, and a model's method only has to accept what the bridge sends
  // (`AiSdkCallOptions`, the subset common to both), which it is called with.
  doGenerate(options: never): PromiseLike<AiSdkGenerateResult>;
  doStream(options: never): PromiseLike<AiSdkStreamResult>;
}

/** JSON as the AI SDK declares it. */
export type AiSdkJson =
  | null
  | string
  | number
  | boolean
  | AiSdkJson[]
  | { [key: string]: AiSdkJson | undefined };

/** Provider options / metadata: `{ [provider]: { [key]: JSON } }`. */
export type AiSdkProviderOptions = Record<string, Record<string, AiSdkJson | undefined>>;

export interface AiSdkTextPart {
  type: "text";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

export interface AiSdkReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}

export interface AiSdkFilePart {
  type: "file";
  data: string | Uint8Array | URL;
  mediaType: string;
  providerOptions?: AiSdkProviderOptions;
}

export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: AiSdkProviderOptions;
}

export type AiSdkToolResultOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: AiSdkJson }
  | { type: "error-text"; value: string }
  | { type: "error-json"; value: AiSdkJson }
  | {
      type: "content";
      // v3 calls inline bytes `file-data`, v2 `media`.
      value: Array<
        { type: "text"; text: string } | { type: "media" | "file-data"; data: string; mediaType: string }
      >;
    };

export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
  providerOptions?: AiSdkProviderOptions;
}

/** One message of the prompt the bridge sends an AI SDK model (its `LanguageModelV2/V3` prompt format). */
export type AiSdkMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: Array<AiSdkTextPart | AiSdkFilePart> }
  | {
      role: "assistant";
      content: Array<AiSdkTextPart | AiSdkFilePart | AiSdkReasoningPart | AiSdkToolCallPart>;
    }
  | { role: "tool"; content: AiSdkToolResultPart[] };

export interface AiSdkFunctionTool {
  type: "function";
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  strict?: boolean;
}

export type AiSdkToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; toolName: string };

/** The call options the bridge sends (the subset common to `v2` and `v3`). */
export interface AiSdkCallOptions {
  prompt: AiSdkMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  seed?: number;
  responseFormat?:
    | { type: "text" }
    | { type: "json"; schema?: Record<string, unknown>; name?: string; description?: string };
  tools?: AiSdkFunctionTool[];
  toolChoice?: AiSdkToolChoice;
  abortSignal?: AbortSignal;
  providerOptions?: AiSdkProviderOptions;
}

/** What `doGenerate` resolves to (read defensively: the versions differ). */
export interface AiSdkGenerateResult {
  content: ReadonlyArray<unknown>;
  finishReason: unknown;
  usage: unknown;
  providerMetadata?: unknown;
  response?: { id?: string; modelId?: string; body?: unknown };
}

/** What `doStream` resolves to. */
export interface AiSdkStreamResult {
  stream: ReadableStream<unknown>;
}
