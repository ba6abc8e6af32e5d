import { describe, expect, it } from "vitest";
import { thrownError } from "../../test/support/thrown.js";
import { assertToolName, isValidToolName, MAX_TOOL_NAME_LENGTH, suggestToolName } from "./tool-name.js";

describe("assertToolName", () => {
  it.each(["a", "get_weather", "search2", "a_b_c_1", "x".repeat(64)])("accepts %s", (name) => {
    expect(() => assertToolName(name)).not.toThrow();
    expect(isValidToolName(name)).toBe(true);
  });

  it("rejects camelCase with a validation error naming the name, the reason and a suggestion", () => {
    const error = thrownError(() => assertToolName("getWeather"));
    expect(error.code).toBe("validation");
    expect(error.message).toContain('"getWeather"');
    expect(error.message).toContain("uppercase");
    expect(error.message).toContain('"get_weather"');
    expect(error.details).toEqual({ field: "name", name: "getWeather" });
  });

  it.each([
    ["", "empty", "my_tool"],
    ["get-weather", "characters outside", "get_weather"],
    ["1tool", "start with a lowercase letter", "tool_1tool"],
    ["_private", "start with a lowercase letter", "private"],
    ["météo", "characters outside", "meteo"],
    ["get weather!", "characters outside", "get_weather"],
    ["x".repeat(65), "65 characters long", "x".repeat(64)],
  ])("rejects %j (%s) and suggests %s", (name, why, suggestion) => {
    const error = thrownError(() => assertToolName(name));
    expect(error.code).toBe("validation");
    expect(error.message).toContain(why);
    expect(error.message).toContain(JSON.stringify(suggestion));
    expect(isValidToolName(name)).toBe(false);
  });

  it("rejects non-strings", () => {
    for (const value of [undefined, null, 42, {}]) {
      const error = thrownError(() => assertToolName(value));
      expect(error.code).toBe("validation");
      expect(error.message).toContain("must be a string");
      expect(error.details?.field).toBe("name");
    }
  });
});

describe("suggestToolName", () => {
  it.each([
    ["getWeather", "get_weather"],
    ["GetWeather", "get_weather"],
    ["HTTPRequest", "http_request"],
    ["parseJSONFile", "parse_json_file"],
    ["search--the  web", "search_the_web"],
    ["v2Lookup", "v2_lookup"],
    ["!!!", "my_tool"],
  ])("%s -> %s", (input, expected) => {
    expect(suggestToolName(input)).toBe(expected);
    expect(isValidToolName(suggestToolName(input))).toBe(true);
  });

  it("always yields a valid name of at most 64 characters", () => {
    const long = suggestToolName(`A${"b_".repeat(100)}`);
    expect(long.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(isValidToolName(long)).toBe(true);
  });
});
