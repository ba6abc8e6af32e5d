import { ProviderError } from "../errors/provider-error.js";
import type { JsonValue } from "../json/json-value.js";
import { readBodyText } from "./body-reader.js";

/**
 * Read a 2xx response body as JSON (at most `MAX_BODY_BYTES`: a longer one is a non-retryable
 * `response_too_large`). An aborted `signal` gives its `abortedError`; a body that breaks while
 * reading is a retryable `ProviderError` (`stream_interrupted`); a body that is not JSON is a
 * non-retryable one (`malformed_response`) keeping the first 2,000 characters.
 */
export async function readJsonBody(
  response: Response,
  provider: string,
  model: string,
  signal: AbortSignal | undefined,
  maxBytes?: number,
): Promise<JsonValue> {
  const text = await readBodyText(response.body, signal, { provider, model, maxBytes });
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new ProviderError({
      provider,
      model,
      kind: "non_retryable",
      providerCode: "malformed_response",
      message: `${provider}: the response body is not JSON (${error instanceof Error ? error.message : String(error)}); check that the base URL points at the provider's API`,
      rawBody: text.slice(0, 2000),
      cause: error,
    });
  }
}
