/** One request the loopback server answered. */
export interface SeenRequest {
  url: string;
  stream: boolean;
  /** Whether the conversation it carried had a tool result in it. */
  withToolResult: boolean;
  offeredTools: boolean;
}

/** A running loopback server: its `/v1` base URL, what it saw, and `close`. */
export interface LoopbackChatServer {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 (no network beyond loopback): when
 * tools are offered and the last message is the user's, it calls the first tool (every argument
 * filled by its JSON Schema type); otherwise it answers "It is sunny in Lisbon.". Streams SSE when
 * asked, with usage in the last chunk.
 */
export function startLoopbackChatServer(): Promise<LoopbackChatServer>;
