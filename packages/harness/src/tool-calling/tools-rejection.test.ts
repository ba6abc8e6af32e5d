import { ProviderError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { isToolsUnsupportedError } from "./tools-rejection.js";

const error = (status: number | undefined, message: string, rawBody?: string) =>
  new ProviderError({
    provider: "p",
    kind: "non_retryable",
    message,
    ...(status === undefined ? {} : { status }),
    ...(rawBody === undefined ? {} : { rawBody }),
  });

describe("isToolsUnsupportedError", () => {
  it.each([
    [400, "registry.ollama.ai/library/gemma:2b does not support tools"],
    [400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
    [400, "tools param requires --jinja flag"],
    [500, "Unsupported param: tools"],
    [400, "Unrecognized request argument supplied: tools"],
    [400, "deepseek-reasoner does not support Function Calling"],
    [400, "tool calling is not supported with this model"],
  ])("recognises a refusal: %i %s", (status, message) => {
    expect(isToolsUnsupportedError(error(status, message))).toBe(true);
  });

  it("reads the raw body too (FastAPI 422 names the field only there)", () => {
    const body =
      '{"detail":[{"type":"extra_forbidden","loc":["body","tools"],"msg":"Extra inputs are not permitted"}]}';
    expect(
      isToolsUnsupportedError(error(422, "p returned HTTP 422: Extra inputs are not permitted.", body)),
    ).toBe(true);
  });

  it.each([
    [400, "Invalid 'tools[0].function.name': string does not match pattern"],
    [400, "Invalid schema for function 'get_weather': 'type' is required"],
    [400, "This model's maximum context length is 8192 tokens"],
    [429, "tools are not supported while rate limited"],
    [undefined, "does not support tools"],
  ])("is not fooled by: %s %s", (status, message) => {
    expect(isToolsUnsupportedError(error(status, message))).toBe(false);
  });

  it("is false for anything but a ProviderError", () => {
    expect(isToolsUnsupportedError(new Error("does not support tools"))).toBe(false);
    expect(isToolsUnsupportedError("tools unsupported")).toBe(false);
  });
});
