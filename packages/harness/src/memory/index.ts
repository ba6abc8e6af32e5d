export { type ChatHistory, InMemoryChatHistory } from "./chat-history.js";
export { loadHistory, type ShortTermMemory } from "./short-term-memory.js";
