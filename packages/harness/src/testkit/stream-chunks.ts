import type { ModelStreamItem } from "@tinyagents/inference";

/** Split `text` into `parts` pieces of near-equal length, never inside a surrogate pair. Empty text gives `[""]`. */
export function splitText(text: string, parts: number): string[] {
  const chars = Array.from(text);
  const count = Math.max(1, Math.min(parts, chars.length));
  const size = Math.ceil(chars.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(""));
  return pieces.length === 0 ? [""] : pieces;
}

/**
 * Make whole-block stream items look like a real provider's stream: each text and reasoning delta
 * becomes two pieces (a reasoning signature rides on the last piece) and each tool call's
 * arguments arrive in three fragments, the first carrying the id and name. Accumulating the
 * result gives the same response as accumulating the input.
 */
export function fragmentStreamItems(items: readonly ModelStreamItem[]): ModelStreamItem[] {
  const out: ModelStreamItem[] = [];
  for (const item of items) {
    if (item.type === "text_delta") {
      for (const piece of splitText(item.text, 2)) out.push({ type: "text_delta", text: piece });
    } else if (item.type === "reasoning_delta") {
      const pieces = splitText(item.text, 2);
      pieces.forEach((piece, i) => {
        const last = i === pieces.length - 1;
        out.push(
          last && item.signature !== undefined
            ? { type: "reasoning_delta", text: piece, signature: item.signature }
            : { type: "reasoning_delta", text: piece },
        );
      });
    } else if (item.type === "tool_call_delta" && item.argumentsDelta !== undefined) {
      const [first = "", ...rest] = splitText(item.argumentsDelta, 3);
      out.push({ ...item, argumentsDelta: first });
      for (const piece of rest)
        out.push({ type: "tool_call_delta", index: item.index, argumentsDelta: piece });
    } else {
      out.push(item);
    }
  }
  return out;
}
