import {
  type CacheSegment,
  type CacheSegmentRole,
  type Message,
  type ModelRequest,
  type ResponseFormat,
  system,
  type ToolSchema,
  user,
  validateMessages,
  validateToolSchemas,
  validationError,
} from "@tinyagents/inference";
import { promptFingerprint } from "../cache/prompt-fingerprint.js";

/** Text (one system message, or a user message for the tail) or messages. */
export type SegmentContent = string | Message | readonly Message[];

/** Options of a pushed segment. */
export interface SegmentOptions {
  /** Segment id (default: the role, suffixed `-2`, `-3`, ... when repeated). Unique per builder. */
  id?: string;
}

interface PendingSegment {
  id: string;
  role: CacheSegmentRole;
  cacheable: boolean;
  messages: Message[];
  tools: ToolSchema[];
}

/**
 * Builds a `ModelRequest` out of named, ordered prompt segments, cache-aware:
 *
 * ```ts
 * const request = new PromptBuilder()
 *   .pushSystem("You are a support agent.")      // cacheable, id "system"
 *   .pushToolsSegment(registry.schemas())         // cacheable, id "tools" (no messages)
 *   .pushInstructions(policyText)                 // cacheable, id "instructions"
 *   .pushHistory(thread)                          // cacheable, id "history"
 *   .pushVolatile(`Now: ${new Date().toISOString()}`) // NOT cacheable, id "volatile"
 *   .build("What changed since yesterday?");      // tail: NOT cacheable, id "tail"
 * ```
 *
 * `build(tail)` concatenates the segments' messages in push order, appends the tail, lists the
 * tool schemas of every tools segment, and sets `cacheSegments` (id, role, cacheable flag and
 * message count of each segment, tail last) and `promptFingerprint` — `promptFingerprint(request)`:
 * SHA-256 of the canonical serialization of the cacheable prefix (messages and tool schemas,
 * stable key order). Rules, checked when pushing (`validation` errors): ids are unique, and no
 * cacheable segment may follow a volatile one (it could never be reused from the cache).
 * Strings become system messages, except the tail, which becomes a user message.
 */
export class PromptBuilder {
  private readonly segments: PendingSegment[] = [];
  private responseFormat: ResponseFormat | undefined;
  private volatileSeen = false;

  /** The stable system prompt (cacheable). */
  pushSystem(content: SegmentContent, options: SegmentOptions = {}): this {
    return this.push("system", true, toMessages(content, "pushSystem"), [], options);
  }

  /** Tool declarations (cacheable, no messages); their schemas go to `request.tools`. */
  pushToolsSegment(tools: readonly ToolSchema[], options: SegmentOptions = {}): this {
    validateToolSchemas(tools, "pushToolsSegment(tools)");
    return this.push("tools", true, [], [...tools], options);
  }

  /** Reusable instruction blocks, policies, schema text (cacheable). */
  pushInstructions(content: SegmentContent, options: SegmentOptions = {}): this {
    return this.push("instructions", true, toMessages(content, "pushInstructions"), [], options);
  }

  /** The conversation so far (cacheable: it only grows between turns). */
  pushHistory(messages: readonly Message[], options: SegmentOptions = {}): this {
    validateMessages(messages, "pushHistory(messages)");
    return this.push("history", true, [...messages], [], options);
  }

  /** Per-call values — timestamps, run ids, retrieved documents — kept out of the cacheable prefix. */
  pushVolatile(content: SegmentContent, options: SegmentOptions = {}): this {
    return this.push("volatile", false, toMessages(content, "pushVolatile"), [], options);
  }

  /** Set the request's response format. */
  withResponseFormat(format: ResponseFormat): this {
    this.responseFormat = format;
    return this;
  }

  /** The segments pushed so far, as `CacheSegment`s (without the tail). */
  cacheSegments(): CacheSegment[] {
    return this.segments.map((s) => ({
      id: s.id,
      role: s.role,
      cacheable: s.cacheable,
      messageCount: s.messages.length,
    }));
  }

  /** The fingerprint `build()` would give (the tail never changes it). */
  fingerprint(): string {
    return promptFingerprint(this.assemble(undefined));
  }

  /**
   * The request: segments in push order, then `tail` (a string becomes a user message) as a
   * non-cacheable segment `"tail"`. `cacheSegments` and `promptFingerprint` are set. Each call
   * returns a new request; the builder can be reused for the next turn.
   */
  build(tail?: SegmentContent): ModelRequest {
    const request = this.assemble(tail);
    request.promptFingerprint = promptFingerprint(request);
    return request;
  }

  private assemble(tail: SegmentContent | undefined): ModelRequest {
    const messages: Message[] = [];
    const tools: ToolSchema[] = [];
    const cacheSegments = this.cacheSegments();
    for (const segment of this.segments) {
      for (const message of segment.messages) messages.push(message);
      for (const tool of segment.tools) tools.push(tool);
    }
    if (tail !== undefined) {
      const tailMessages = typeof tail === "string" ? [user(tail)] : toMessages(tail, "build(tail)");
      for (const message of tailMessages) messages.push(message);
      cacheSegments.push({
        id: "tail",
        role: "volatile",
        cacheable: false,
        messageCount: tailMessages.length,
      });
    }
    const request: ModelRequest = { messages, cacheSegments };
    if (tools.length > 0) request.tools = tools;
    if (this.responseFormat !== undefined) request.responseFormat = this.responseFormat;
    return request;
  }

  private push(
    role: CacheSegmentRole,
    cacheable: boolean,
    messages: Message[],
    tools: ToolSchema[],
    options: SegmentOptions,
  ): this {
    const id = options.id ?? this.defaultId(role);
    if (typeof id !== "string" || id === "" || id === "tail") {
      throw validationError(
        `PromptBuilder: segment id must be a non-empty string other than "tail", got ${JSON.stringify(id)}`,
        {
          field: "id",
        },
      );
    }
    if (this.segments.some((s) => s.id === id)) {
      throw validationError(
        `PromptBuilder: segment id "${id}" is already used; give each segment a unique id`,
        {
          field: "id",
          id,
        },
      );
    }
    if (cacheable && this.volatileSeen) {
      throw validationError(
        `PromptBuilder: cacheable segment "${id}" (${role}) pushed after a volatile segment; stable segments must come first ` +
          "or the provider cannot reuse them from its prompt cache — push volatile content last",
        { field: "order", id },
      );
    }
    if (!cacheable) this.volatileSeen = true;
    this.segments.push({ id, role, cacheable, messages, tools });
    return this;
  }

  private defaultId(role: CacheSegmentRole): string {
    const used = this.segments.filter((s) => s.role === role).length;
    return used === 0 ? role : `${role}-${used + 1}`;
  }
}

function toMessages(content: SegmentContent, where: string): Message[] {
  if (typeof content === "string") return [system(content)];
  const list = Array.isArray(content) ? [...(content as readonly Message[])] : [content as Message];
  validateMessages(list, where);
  return list;
}
