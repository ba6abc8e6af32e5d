import { isJsonObject, type JsonValue } from "@tinyagents/inference";

/**
 * Resolve a local JSON Schema `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, or any JSON pointer
 * with `~0`/`~1` escapes) within `root`. Returns `undefined` when the ref is remote or points
 * nowhere. Does not follow refs transitively.
 */
export function resolveSchemaRef(root: JsonValue, ref: string): JsonValue | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = safeDecode(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (isJsonObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else return undefined;
  }
  return node;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
