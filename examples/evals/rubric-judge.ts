/**
 * The judge model of the example, offline: a rule-based ChatModel standing in for an LLM judge.
 * It reads the prompt llmJudge builds (rubric, input, answer) and returns the structured verdict a
 * judge model would. Swap in any ChatModel (fromEnv(), an OpenAI or Anthropic model) for real grading.
 */
import {
  assistant,
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  text,
  usage,
} from "@tinyagents/inference";

export const rubricJudge: ChatModel = {
  provider: "scripted",
  modelId: "rubric-judge",
  cacheIdentity: "scripted:rubric-judge",
  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const prompt = text(request.messages.at(-1));
    const answer = prompt.split("ASSISTANT ANSWER:\n")[1]?.split("\n\nScore from")[0] ?? "";
    const words = answer.split(/\s+/).filter(Boolean).length;
    const verdict =
      answer === "(no answer)"
        ? { reason: "No answer was given.", score: 1 }
        : words <= 25
          ? { reason: "Direct and concise; answers what was asked.", score: 5 }
          : { reason: "Answers, but is wordy for a travel assistant.", score: 3 };
    return {
      message: assistant(JSON.stringify(verdict)),
      usage: usage({ inputTokens: 320, outputTokens: 30 }),
      finishReason: "stop",
    };
  },
};
