import { describe, expect, it } from "vitest";
import { ProviderError } from "../errors/provider-error.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { everyFieldRequest, everyFieldResponse, everyStreamItem } from "./model.fixture.js";
import { permissiveProfile } from "./model-profile.js";

const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("JSON round trip", () => {
  it("a request with every field", () => {
    expect(roundTrip(everyFieldRequest)).toStrictEqual(everyFieldRequest);
  });

  it("a response with every field", () => {
    expect(roundTrip(everyFieldResponse)).toStrictEqual(everyFieldResponse);
  });

  it("stream items of every type", () => {
    expect(new Set(everyStreamItem.map((item) => item.type)).size).toBe(8);
    expect(roundTrip(everyStreamItem)).toStrictEqual(everyStreamItem);
  });

  it("a model profile", () => {
    const profile = {
      ...permissiveProfile(),
      contextWindow: 128_000,
      maxOutputTokens: 8192,
      status: "stable",
    };
    expect(roundTrip(profile)).toStrictEqual(profile);
  });

  it("errors serialize to their summary via toJSON", () => {
    const error = new TinyAgentsError("validation", "bad", {
      details: { field: "x" },
      cause: new Error("c"),
    });
    expect(roundTrip(error)).toStrictEqual({
      name: "TinyAgentsError",
      code: "validation",
      message: "bad",
      details: { field: "x" },
    });
    const provider = new ProviderError({
      provider: "openai",
      message: "slow down",
      kind: "rate_limited",
      model: "gpt",
      status: 429,
      providerCode: "rate_limit_exceeded",
      retryAfterMs: 1500,
      rawBody: "{}",
    });
    const summary = roundTrip(provider);
    expect(summary).toStrictEqual(provider.toJSON());
    expect(summary).toStrictEqual({
      name: "ProviderError",
      code: "provider",
      message: "slow down",
      details: {
        provider: "openai",
        kind: "rate_limited",
        model: "gpt",
        status: 429,
        providerCode: "rate_limit_exceeded",
        retryAfterMs: 1500,
      },
    });
  });
});
