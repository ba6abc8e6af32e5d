import { assistant, type Message, system, user, validationError } from "@tinyagents/inference";
import { canonicalJson } from "../cache/canonical-json.js";

/** The role a rendered template takes. */
export type TemplateRole = "system" | "user" | "assistant";

/** Values for a template's variables. Non-strings are rendered as canonical JSON. */
export type TemplateVars = Readonly<Record<string, unknown>>;

/** Options of {@link PromptTemplate}. */
export interface PromptTemplateOptions {
  /** Role of {@link PromptTemplate.renderMessage} (default `"user"`). */
  role?: TemplateRole;
  /** Accept variables the template does not use (default false: they are a `validation` error). */
  allowExtra?: boolean;
}

type Part = { kind: "text"; text: string } | { kind: "var"; name: string };

const PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/;

/**
 * A prompt with `{{name}}` placeholders (spaces inside the braces are allowed: `{{ name }}`).
 *
 * - Names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`). Anything else that opens with `{{` is
 *   malformed and rejected when the template is created, naming its offset.
 * - Literal braces: single braces are always literal (`{"a": 1}` needs no escaping); write `\{{`
 *   for a literal `{{` (the backslash is dropped). No other escapes exist.
 * - `render(vars)`: every placeholder must have a value (`undefined` counts as missing) and, unless
 *   `allowExtra`, every value must be used; otherwise a `validation` error names all missing and
 *   unknown variables at once. Strings are inserted as is; other values as canonical JSON (sorted
 *   keys), so rendering is byte-stable — which keeps rendered prompts prompt-cache friendly.
 * Parsing happens once, in the constructor.
 */
export class PromptTemplate {
  readonly source: string;
  readonly role: TemplateRole;
  /** The distinct variable names, in order of first use. */
  readonly variables: readonly string[];
  private readonly parts: readonly Part[];
  private readonly allowExtra: boolean;

  constructor(source: string, options: PromptTemplateOptions = {}) {
    if (typeof source !== "string") {
      throw validationError(`PromptTemplate: the template must be a string, got ${typeof source}`, {
        field: "template",
      });
    }
    const role = options.role ?? "user";
    if (role !== "system" && role !== "user" && role !== "assistant") {
      throw validationError(
        `PromptTemplate: role must be "system", "user" or "assistant", got ${String(role)}`,
        {
          field: "role",
        },
      );
    }
    this.source = source;
    this.role = role;
    this.allowExtra = options.allowExtra === true;
    this.parts = parse(source);
    this.variables = [...new Set(this.parts.flatMap((p) => (p.kind === "var" ? [p.name] : [])))];
  }

  /** A system-role template. */
  static system(source: string, options: Omit<PromptTemplateOptions, "role"> = {}): PromptTemplate {
    return new PromptTemplate(source, { ...options, role: "system" });
  }

  /** A user-role template. */
  static user(source: string, options: Omit<PromptTemplateOptions, "role"> = {}): PromptTemplate {
    return new PromptTemplate(source, { ...options, role: "user" });
  }

  /** An assistant-role template (few-shot examples). */
  static assistant(source: string, options: Omit<PromptTemplateOptions, "role"> = {}): PromptTemplate {
    return new PromptTemplate(source, { ...options, role: "assistant" });
  }

  /** The text with every placeholder replaced. Throws `validation` naming missing and unknown variables. */
  render(vars: TemplateVars = {}): string {
    checkVars(this.variables, vars, this.allowExtra, "PromptTemplate");
    let out = "";
    for (const part of this.parts) out += part.kind === "text" ? part.text : valueText(vars[part.name]);
    return out;
  }

  /** `render(vars)` as a message with the template's role. */
  renderMessage(vars: TemplateVars = {}): Message {
    const rendered = this.render(vars);
    return this.role === "system"
      ? system(rendered)
      : this.role === "assistant"
        ? assistant(rendered)
        : user(rendered);
  }
}

/**
 * Throw a `validation` error naming every variable of `variables` missing from `vars`, and (unless
 * `allowExtra`) every key of `vars` not in `variables`.
 */
export function checkVars(
  variables: readonly string[],
  vars: TemplateVars,
  allowExtra: boolean,
  what: string,
): void {
  if (typeof vars !== "object" || vars === null) {
    throw validationError(`${what}: variables must be an object of name -> value`, { field: "vars" });
  }
  const missing = variables.filter((name) => vars[name] === undefined);
  const known = new Set(variables);
  const unknown = allowExtra ? [] : Object.keys(vars).filter((name) => !known.has(name));
  if (missing.length === 0 && unknown.length === 0) return;
  const problems: string[] = [];
  if (missing.length > 0) problems.push(`missing variable(s) ${missing.map((n) => `"${n}"`).join(", ")}`);
  if (unknown.length > 0) {
    problems.push(
      `unknown variable(s) ${unknown.map((n) => `"${n}"`).join(", ")} (the template uses ${variables.map((n) => `"${n}"`).join(", ") || "none"})`,
    );
  }
  throw validationError(
    `${what}: ${problems.join("; ")}; pass exactly the template's variables, or set allowExtra`,
    {
      field: "vars",
      missing,
      unknown,
    },
  );
}

function valueText(value: unknown): string {
  return typeof value === "string" ? value : canonicalJson(value);
}

function parse(source: string): Part[] {
  const parts: Part[] = [];
  let text = "";
  let i = 0;
  while (i < source.length) {
    if (source.startsWith("\\{{", i)) {
      text += "{{";
      i += 3;
      continue;
    }
    if (source.startsWith("{{", i)) {
      const match = PLACEHOLDER.exec(source.slice(i, i + 200));
      if (match === null) {
        throw validationError(
          `PromptTemplate: malformed placeholder at offset ${i} (${JSON.stringify(source.slice(i, i + 24))}); ` +
            "write {{name}} with an identifier name, or \\{{ for a literal {{",
          { field: "template", offset: i },
        );
      }
      if (text !== "") parts.push({ kind: "text", text });
      text = "";
      parts.push({ kind: "var", name: match[1] as string });
      i += match[0].length;
      continue;
    }
    text += source[i];
    i++;
  }
  if (text !== "") parts.push({ kind: "text", text });
  return parts;
}
