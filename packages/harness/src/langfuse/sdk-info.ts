/**
 * How the exporter introduces itself to Langfuse: the `x-langfuse-sdk-name` /
 * `x-langfuse-sdk-version` headers and the ingestion batch `metadata`. The version is the
 * harness package's (a test keeps them equal).
 */
export const LANGFUSE_SDK_INFO = { name: "tinyagents", version: "0.1.0", integration: "tinyagents" } as const;
