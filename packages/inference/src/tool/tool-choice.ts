/**
 * How the model may use tools on this call: decide itself (`auto`), never (`none`),
 * at least one (`required`), or exactly the named tool.
 */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; name: string };
