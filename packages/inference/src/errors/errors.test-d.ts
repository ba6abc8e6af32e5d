import { describe, expectTypeOf, it } from "vitest";
import type { ErrorCode } from "./error-code.js";
import type { ProviderError, ProviderFailureKind } from "./provider-error.js";
import type { ErrorSummary, TinyAgentsError } from "./tinyagents-error.js";

describe("error codes", () => {
  it("is a closed union", () => {
    expectTypeOf<"validation">().toMatchTypeOf<ErrorCode>();
    expectTypeOf<"provider">().toMatchTypeOf<ErrorCode>();
    expectTypeOf<"context_overflow">().toMatchTypeOf<ErrorCode>();
    expectTypeOf<"nope">().not.toMatchTypeOf<ErrorCode>();
    expectTypeOf<string>().not.toMatchTypeOf<ErrorCode>();
  });

  it("can be switched on exhaustively", () => {
    const describeCode = (code: ErrorCode): string => {
      switch (code) {
        case "limit_exceeded":
        case "timeout":
        case "cancelled":
        case "tool_not_found":
        case "tool":
        case "validation":
        case "provider":
        case "context_overflow":
        case "structured_output":
        case "sub_agent_depth":
        case "steering":
        case "middleware":
        case "guardrail":
        case "model_not_found":
        case "empty_response":
        case "storage":
        case "capability":
        case "interrupted":
        case "serialization":
        case "conflict":
        case "abandoned":
        case "not_found":
        case "unavailable":
        case "internal":
          return code;
        default: {
          const never: never = code;
          return never;
        }
      }
    };
    expectTypeOf(describeCode).returns.toEqualTypeOf<string>();
  });

  it("types the error family", () => {
    expectTypeOf<TinyAgentsError["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ProviderError>().toMatchTypeOf<TinyAgentsError>();
    expectTypeOf<ProviderError["kind"]>().toEqualTypeOf<ProviderFailureKind>();
    expectTypeOf<ProviderError["retryAfterMs"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ReturnType<TinyAgentsError["toJSON"]>>().toEqualTypeOf<ErrorSummary>();
  });
});
