import { system, text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { MessagesTemplate } from "./messages-template.js";
import { PromptTemplate } from "./prompt-template.js";

describe("PromptTemplate", () => {
  it("substitutes {{var}} (spaces allowed) and renders non-strings as canonical JSON", () => {
    const t = new PromptTemplate("Hi {{ name }}, you have {{count}} items: {{items}} {{flags}}");
    expect(t.variables).toEqual(["name", "count", "items", "flags"]);
    expect(t.render({ name: "Ada", count: 3, items: ["a", "b"], flags: { z: true, a: null } })).toBe(
      'Hi Ada, you have 3 items: ["a","b"] {"a":null,"z":true}',
    );
  });

  it("names every missing and unknown variable in one validation error", () => {
    const t = new PromptTemplate("{{a}} {{b}}");
    expect(() => t.render({ a: 1, c: 2, d: 3 })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { field: "vars", missing: ["b"], unknown: ["c", "d"] },
      }),
    );
    expect(() => t.render({ a: 1, b: undefined })).toThrow(/missing variable\(s\) "b"/);
    expect(new PromptTemplate("{{a}}", { allowExtra: true }).render({ a: "x", extra: 1 })).toBe("x");
  });

  it("keeps single braces literal and escapes {{ with a backslash", () => {
    const t = new PromptTemplate('Return {"ok": true} or \\{{literal}} for {{who}}');
    expect(t.variables).toEqual(["who"]);
    expect(t.render({ who: "me" })).toBe('Return {"ok": true} or {{literal}} for me');
  });

  it("rejects malformed placeholders when created, naming the offset", () => {
    expect(() => new PromptTemplate("Hello {{user name}}")).toThrow(/malformed placeholder at offset 6/);
    expect(() => new PromptTemplate("{{")).toThrow(/malformed/);
  });

  it("renders messages with its role", () => {
    expect(PromptTemplate.system("You help {{who}}.").renderMessage({ who: "Ada" })).toEqual(
      system("You help Ada."),
    );
    expect(new PromptTemplate("q: {{q}}").renderMessage({ q: "x" })).toEqual(user("q: x"));
    expect(PromptTemplate.assistant("ok").renderMessage().role).toBe("assistant");
  });
});

describe("MessagesTemplate", () => {
  it("renders an ordered conversation of templates, pairs and fixed messages", () => {
    const t = new MessagesTemplate([
      PromptTemplate.system("You are {{persona}}."),
      user("Example question"),
      ["assistant", "Example answer"],
      ["user", "{{question}}"],
    ]);
    expect(t.variables).toEqual(["persona", "question"]);
    const messages = t.render({ persona: "terse", question: "Why?" });
    expect(messages.map((m) => `${m.role}:${text(m)}`)).toEqual([
      "system:You are terse.",
      "user:Example question",
      "assistant:Example answer",
      "user:Why?",
    ]);
    expect(() => t.render({ persona: "x" })).toThrow(/"question"/);
    expect(() => new MessagesTemplate([{ role: "nobody" } as never])).toThrow(/entries\[0\]/);
  });
});
