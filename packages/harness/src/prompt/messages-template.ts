import { type Message, validateMessage, validationError } from "@tinyagents/inference";
import { checkVars, PromptTemplate, type TemplateRole, type TemplateVars } from "./prompt-template.js";

/** One entry of a {@link MessagesTemplate}: a template, a `[role, template text]` pair, or a fixed message. */
export type MessagesTemplateEntry = PromptTemplate | readonly [TemplateRole, string] | Message;

/**
 * An ordered multi-message conversation of templates and fixed messages (system prompt, few-shot
 * examples, the user's turn). `render(vars)` renders every template with the same variables and
 * returns the messages in order; a fixed message is used as is. The variables are checked across
 * the whole conversation: one `validation` error names every missing variable and, unless
 * `allowExtra`, every variable no template uses.
 */
export class MessagesTemplate {
  readonly entries: readonly (PromptTemplate | Message)[];
  /** The distinct variable names of all templates, in order of first use. */
  readonly variables: readonly string[];
  private readonly allowExtra: boolean;

  /** Throws `validation` for a malformed template or fixed message (naming its index). */
  constructor(entries: readonly MessagesTemplateEntry[], options: { allowExtra?: boolean } = {}) {
    if (!Array.isArray(entries)) {
      throw validationError("MessagesTemplate: entries must be an array", { field: "entries" });
    }
    this.entries = entries.map((entry, index) => {
      if (entry instanceof PromptTemplate) return entry;
      if (isPair(entry)) return new PromptTemplate(entry[1], { role: entry[0], allowExtra: true });
      try {
        return validateMessage(entry, `entries[${index}]`);
      } catch (error) {
        throw validationError(
          `MessagesTemplate: entries[${index}] is neither a PromptTemplate, a [role, text] pair nor a message: ${(error as Error).message}`,
          { field: `entries[${index}]` },
        );
      }
    });
    this.variables = [
      ...new Set(this.entries.flatMap((e) => (e instanceof PromptTemplate ? e.variables : []))),
    ];
    this.allowExtra = options.allowExtra === true;
  }

  /** The rendered messages, in order. Throws `validation` naming missing and unknown variables. */
  render(vars: TemplateVars = {}): Message[] {
    checkVars(this.variables, vars, this.allowExtra, "MessagesTemplate");
    return this.entries.map((entry) => {
      if (!(entry instanceof PromptTemplate)) return entry;
      const own: Record<string, unknown> = {};
      for (const name of entry.variables) own[name] = vars[name];
      return entry.renderMessage(own);
    });
  }
}

function isPair(entry: MessagesTemplateEntry): entry is readonly [TemplateRole, string] {
  return Array.isArray(entry);
}
