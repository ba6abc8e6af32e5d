import { describe, expect, it } from "vitest";
import { readNdjson } from "./ndjson.js";
import { byteChunks, drain, streamOf } from "./test-streams.fixture.js";

describe("readNdjson", () => {
  const body = '{"a":1}\n\n{"b":"é€"}\r\n  \n{"c":[1,2]}';
  it("parses lines, tolerating blank lines, CRLF and a final line without newline", async () => {
    expect(await drain(readNdjson(streamOf([body])))).toEqual([{ a: 1 }, { b: "é€" }, { c: [1, 2] }]);
    expect(await drain(readNdjson(streamOf(byteChunks(body))))).toEqual([
      { a: 1 },
      { b: "é€" },
      { c: [1, 2] },
    ]);
  });

  it("throws a non-retryable ProviderError for a malformed complete line", async () => {
    const error = await drain(
      readNdjson(streamOf(['{"a":1}\nnot json\n{"b":2}\n']), undefined, { provider: "ollama" }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ provider: "ollama", retryable: false, providerCode: "malformed_stream" });
    expect((error as Error).message).toContain("not json");
  });

  it("throws a retryable truncation error for a cut final line", async () => {
    const error = await drain(readNdjson(streamOf(['{"a":1}\n{"b":']))).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, providerCode: "stream_truncated" });
  });
});
