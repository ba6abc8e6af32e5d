import { validationError } from "../errors/tinyagents-error.js";
import type { ModelRequest } from "./model-request.js";

/**
 * The name of a named tool choice, once it is known to be one of `request.tools`; throws a
 * `validation` error (field `toolChoice`) otherwise. Adapters check before mapping because a
 * provider would reject such a request with a vaguer message, or quietly ignore the choice.
 */
export function declaredToolChoice(choice: { name: string }, request: ModelRequest): string {
  if (!(request.tools ?? []).some((tool) => tool.name === choice.name)) {
    throw validationError(
      `toolChoice names the tool "${choice.name}", which is not among the request's tools; declare it or choose another`,
      { field: "toolChoice" },
    );
  }
  return choice.name;
}
