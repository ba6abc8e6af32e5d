import { defaultTokenCounter, type Message, type TokenCounter } from "@tinyagents/inference";

const memos = new WeakMap<TokenCounter, WeakMap<Message, number>>();

/**
 * `counter.countMessage(message)`, memoized per counter and message object: messages are
 * immutable once appended, so a transcript's count costs O(new messages) per turn instead of
 * re-serializing everything. Default counter: `defaultTokenCounter` (about 4 chars per token).
 */
export function messageTokens(message: Message, counter: TokenCounter = defaultTokenCounter): number {
  let memo = memos.get(counter);
  if (memo === undefined) {
    memo = new WeakMap();
    memos.set(counter, memo);
  }
  let tokens = memo.get(message);
  if (tokens === undefined) {
    tokens = counter.countMessage(message);
    memo.set(message, tokens);
  }
  return tokens;
}

/** The summed {@link messageTokens} of `messages[start..end)`. */
export function messagesTokens(
  messages: readonly Message[],
  counter: TokenCounter = defaultTokenCounter,
  start = 0,
  end = messages.length,
): number {
  let total = 0;
  for (let i = start; i < end; i++) total += messageTokens(messages[i] as Message, counter);
  return total;
}
