import { describe, expect, it } from "vitest";
import { formatIssuePath, formatStandardIssues } from "./standard-issues.js";

describe("formatStandardIssues", () => {
  it("prefixes each message with a JSON path", () => {
    expect(
      formatStandardIssues([
        { message: "Required", path: ["items", 0, { key: "name" }] },
        { message: "Bad", path: [{ key: "first name" }] },
        { message: "Root" },
        { message: "Sym", path: [Symbol("s")] },
      ]),
    ).toEqual(["$.items[0].name: Required", '$["first name"]: Bad', "$: Root", "$[Symbol(s)]: Sym"]);
  });

  it("never returns an empty list", () => {
    expect(formatStandardIssues([])).toEqual(["$: the arguments were rejected by the schema"]);
  });

  it("formats paths", () => {
    expect(formatIssuePath(undefined)).toBe("$");
    expect(formatIssuePath([])).toBe("$");
    expect(formatIssuePath(["$ok", "_x1"])).toBe("$.$ok._x1");
  });
});
