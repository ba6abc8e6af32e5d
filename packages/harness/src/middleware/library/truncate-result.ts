import type { ContentBlock } from "@tinyagents/inference";
import { utf8ByteLength } from "../../encoding/utf8.js";
import type { ToolResult } from "../../tool/tool.js";
import { resultSizeBytes } from "../../tool/tool-result.js";

/**
 * `result` cut down to about `maxBytes` UTF-8 bytes of model-visible payload (text blocks, and
 * json blocks turned into their JSON text), with a note saying how much was dropped. Other blocks
 * (images) are kept. Returns `result` itself when it already fits.
 */
export function truncateResult(result: ToolResult, maxBytes: number): ToolResult {
  const total = resultSizeBytes(result);
  if (total <= maxBytes) return result;
  let budget = maxBytes;
  const content: ContentBlock[] = [];
  for (const block of result.content) {
    if (block.type !== "text" && block.type !== "json") {
      content.push(block);
      continue;
    }
    const text = block.type === "text" ? block.text : (JSON.stringify(block.value) ?? "");
    const kept = cutUtf8(text, budget);
    budget -= utf8Length(kept);
    if (kept !== "") content.push({ type: "text", text: kept });
  }
  content.push({ type: "text", text: `\n[truncated: showing ${maxBytes - budget} of ${total} bytes]` });
  return { ...result, content };
}

/** The longest prefix of `text` (whole code points) of at most `maxBytes` UTF-8 bytes. */
function cutUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Length(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

function utf8Length(text: string): number {
  return utf8ByteLength(text);
}
