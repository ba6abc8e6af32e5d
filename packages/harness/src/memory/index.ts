export { type ChatHistory, InMemoryChatHistory } from "./chat-history.js";
export { loadHistory, type ShortTermMemory } from "./short-term-memory.js";
export { StoreChatHistory, type StoreChatHistoryBackend } from "./store-chat-history.js";
