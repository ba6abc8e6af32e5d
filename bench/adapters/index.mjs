// The adapters, in table order, with their table labels. The hand-written loop comes first: it is
// the floor every ratio is taken against. `tinyagents-production` is W5 (ours with production
// middleware and a JSONL sink). Adapters load only in child processes.
export const LABELS = {
  "hand-written": "hand-written loop (floor)",
  tinyagents: "tinyagents",
  "tinyagents-production": "tinyagents + retry, budget, usage, JSONL (W5)",
  "ai-sdk": "Vercel AI SDK",
  langchain: "LangChain.js",
  "openai-agents": "OpenAI Agents JS",
};

export const ADAPTERS = Object.keys(LABELS);

export const FLOOR = "hand-written";

/** W4: the package each framework's users import, by table row. */
export const IMPORTS = ["@tinyagents/harness", "ai", "langchain", "@openai/agents"];

export async function loadAdapter(name) {
  if (!ADAPTERS.includes(name)) throw new Error(`unknown adapter ${name}; known: ${ADAPTERS.join(", ")}`);
  return import(`./${name}.mjs`);
}
