/**
 * Local model probe: what can the OpenAI-compatible server on this machine do (text, streaming,
 * tool calls, strict JSON)? Skips cleanly when nothing is listening.
 * Run: npx tsx examples/local-model-probe.ts   (LOCAL_BASE_URL=http://localhost:8080/v1 LOCAL_MODEL=qwen3-8b)
 */
import { probeOpenAiCompatible } from "@tinyagents/inference";

const baseUrl = process.env.LOCAL_BASE_URL ?? "http://127.0.0.1:11434/v1"; // Ollama's OpenAI-compatible API
const model = process.env.LOCAL_MODEL ?? "llama3.2";

const reachable = await fetch(`${baseUrl.replace(/\/+$/, "")}/models`, {
  signal: AbortSignal.timeout(1000),
}).then(
  () => true,
  () => false,
);
if (!reachable) {
  console.log(
    `skipped: no server at ${baseUrl} (start Ollama, llama.cpp or vLLM, or set LOCAL_BASE_URL and LOCAL_MODEL)`,
  );
} else {
  const report = await probeOpenAiCompatible(baseUrl, model, { timeoutMs: 60_000 });
  for (const [check, result] of Object.entries(report)) {
    if (typeof result === "object" && result !== null && "ok" in result) {
      console.log(
        `${result.ok ? "yes" : "no "} ${check}: ${result.ok ? (result.detail ?? "") : (result.error ?? "")}`,
      );
    }
  }
}
