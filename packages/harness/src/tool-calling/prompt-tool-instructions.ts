import type { Message, SystemMessage, ToolChoice, ToolSchema } from "@tinyagents/inference";

/**
 * The tool-use protocol block for prompt-guided tool calling: how to write a call
 * (`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`), how results come back
 * (`<tool_result>` blocks in the next user message), what the tool choice demands, and a
 * catalogue of the tools (name, description, JSON Schema of the arguments).
 *
 * The text depends only on `tools` and `toolChoice` (schemas are serialized with
 * `JSON.stringify`), so the system prompt stays byte-stable across turns and the provider's
 * prompt cache keeps working. `toolChoice: "none"` or no tools gives `""`.
 */
export function promptToolInstructions(tools: readonly ToolSchema[], toolChoice?: ToolChoice): string {
  if (tools.length === 0 || toolChoice === "none") return "";
  const lines = [
    "## Tool use protocol",
    "",
    "You can call tools. To call one, write a JSON object with the tool's name and arguments inside <tool_call></tool_call> tags, exactly like this:",
    "",
    "<tool_call>",
    '{"name": "tool_name", "arguments": {"parameter": "value"}}',
    "</tool_call>",
    "",
    "You may write several tool calls in one reply. After your tool calls, stop and wait: the results come back in <tool_result> tags in the next message. When you have what you need, answer normally, without <tool_call> tags.",
  ];
  if (toolChoice === "required") lines.push("", "In this reply you must call at least one tool.");
  else if (typeof toolChoice === "object") {
    lines.push("", `In this reply you must call the tool "${toolChoice.name}".`);
  }
  lines.push("", "### Available tools");
  for (const tool of tools) {
    lines.push("", `- ${tool.name}: ${tool.description.trim() || "(no description)"}`);
    lines.push(`  Arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`);
  }
  return lines.join("\n");
}

/**
 * `messages` with the protocol block added to the system prompt: as an extra text block at the
 * end of the FIRST system message (its own text stays untouched), or as a new leading system
 * message when there is none. Returns the input array itself when there is nothing to add;
 * never mutates it.
 */
export function withPromptToolInstructions(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  toolChoice?: ToolChoice,
): readonly Message[] {
  const block = promptToolInstructions(tools, toolChoice);
  if (block === "") return messages;
  const index = messages.findIndex((message) => message.role === "system");
  if (index === -1) return [{ role: "system", content: [{ type: "text", text: block }] }, ...messages];
  const system = messages[index] as SystemMessage;
  const out = [...messages];
  out[index] = { role: "system", content: [...system.content, { type: "text", text: block }] };
  return out;
}
