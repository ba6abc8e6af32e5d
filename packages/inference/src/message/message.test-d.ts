import { describe, expectTypeOf, it } from "vitest";
import type { ContentBlock } from "./content-block.js";
import type { AssistantMessage, Message, Role, ToolMessage } from "./message.js";

describe("Message union", () => {
  it("narrows on role", () => {
    const check = (message: Message) => {
      if (message.role === "assistant") {
        expectTypeOf(message).toEqualTypeOf<AssistantMessage>();
        expectTypeOf(message.toolCalls[0]!.arguments).toEqualTypeOf<
          import("../json/json-value.js").JsonObject
        >();
      } else if (message.role === "tool") {
        expectTypeOf(message).toEqualTypeOf<ToolMessage>();
        expectTypeOf(message.toolCallId).toEqualTypeOf<string>();
        expectTypeOf(message.isError).toEqualTypeOf<boolean>();
      } else {
        expectTypeOf(message.role).toEqualTypeOf<"system" | "user">();
        // @ts-expect-error only assistant messages carry tool calls
        message.toolCalls;
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it("has a closed set of roles and block types", () => {
    expectTypeOf<Role>().toEqualTypeOf<"system" | "user" | "assistant" | "tool">();
    expectTypeOf<ContentBlock["type"]>().toEqualTypeOf<
      "text" | "json" | "image" | "reasoning" | "redacted_reasoning" | "provider_extension"
    >();
    expectTypeOf<{ role: "bot"; content: [] }>().not.toMatchTypeOf<Message>();
  });

  it("narrows content blocks on type", () => {
    const check = (block: ContentBlock) => {
      if (block.type === "reasoning") expectTypeOf(block.signature).toEqualTypeOf<string | undefined>();
      if (block.type === "image" && block.source.kind === "base64") {
        expectTypeOf(block.source.mimeType).toEqualTypeOf<string>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it("requires toolCalls on assistant messages and ids on tool messages", () => {
    expectTypeOf<{ role: "assistant"; content: [] }>().not.toMatchTypeOf<Message>();
    expectTypeOf<{ role: "tool"; content: []; toolName: "x"; isError: false }>().not.toMatchTypeOf<Message>();
  });
});
