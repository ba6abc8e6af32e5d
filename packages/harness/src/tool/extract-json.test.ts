import { describe, expect, it } from "vitest";
import { extractJsonObject } from "./extract-json.js";

describe("extractJsonObject", () => {
  it.each([
    ['{"a":1}', { a: 1 }, "raw argument text"],
    ['  ```json\n{"a":1}\n```', { a: 1 }, "markdown code fence"],
    ['```JSON {"a":1}```', { a: 1 }, "markdown code fence"],
    ['```json\nhere: {"a":1} ok\n```', { a: 1 }, "markdown code fence"],
    ['"{\\"a\\":1}"', { a: 1 }, "JSON string"],
    ['prefix {"a":"}{"} suffix', { a: "}{" }, "surrounding text"],
    ['{"a":"\\"}"} trailing', { a: '"}' }, "surrounding text"],
  ])("recovers %j", (text, value, how) => {
    const result = extractJsonObject(text);
    expect(result?.value).toEqual(value);
    expect(result?.how).toContain(how);
  });

  it.each(["", "nothing here", "[1,2]", '{"a":', "{ unbalanced", '"just a string"'])(
    "gives up on %j",
    (text) => {
      expect(extractJsonObject(text)).toBeUndefined();
    },
  );

  it("stops after a bounded number of attempts", () => {
    const text = `${"{x} ".repeat(100)}{"a":1}`;
    expect(extractJsonObject(text)).toBeUndefined();
  });
});
