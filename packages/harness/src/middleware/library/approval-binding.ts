import type { JsonObject } from "@tinyagents/inference";
import { canonicalJson } from "../../cache/canonical-json.js";
import { sha256Hex } from "../../cache/sha256.js";

export type { ApprovalWait } from "../../contracts/durable-context.js";

/**
 * What an approval is bound to: SHA-256 (hex) of the canonical JSON of `{ toolName, arguments }`
 * (key order does not matter). Carried by the `approval.requested` event and by an engine's
 * pending approval, so a client can approve exactly the call it was shown: an engine refuses a
 * decision whose hash names other arguments.
 */
export function approvalArgumentsHash(toolName: string, args: JsonObject): string {
  return sha256Hex(canonicalJson({ toolName, arguments: args }));
}
