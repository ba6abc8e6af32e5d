/** The top-level `tinyagents --help` text (commands, models, store, exit codes). */
export const MAIN_HELP = `tinyagents — run and inspect LLM agents from the command line

Usage:
  tinyagents run "<prompt>" [--model provider:model] [--tools time,fs,calc,http] [--mcp "<command>"] [--thread ID] [--json]
  tinyagents chat [--thread ID] [--model ...] [--tools ...]     an interactive session on a thread
  tinyagents runs [--thread ID]                                 recorded runs
  tinyagents runs --stale | --reap                              runs whose process died: list them / mark them failed
  tinyagents recover <run-id>                                   continue a run whose process died, from its checkpoint
  tinyagents show <run-id> [--json]                             a run's timeline from its journal
  tinyagents ui [--port N] [--host H]                           a local web inspector for recorded runs
  tinyagents probe <base-url> --model M                         what an OpenAI-compatible endpoint can do
  tinyagents demo                                               the offline, scripted showcase (also: no arguments)
  tinyagents test export <run-id|last> [--out DIR]              a recorded run as a replay test (cassette + vitest file)
  tinyagents eval <file> [--repeats N] [--baseline ID] [--json]  run an eval (dataset + agent + scorers), gate on thresholds

Every command takes --help. Models: --model or TINYAGENTS_MODEL ("openai:gpt-4.1-mini",
"anthropic:claude-sonnet-4-6", "ollama:qwen3:8b", ...), keys from the providers' usual variables
(OPENAI_API_KEY, ANTHROPIC_API_KEY, ...). With no key and no local server the offline demo model
is used, and the CLI says so.

Store: $TINYAGENTS_HOME/tinyagents.db, else $XDG_DATA_HOME/tinyagents/, else ~/.local/share/tinyagents/
(override with --db FILE).

Exit codes: 0 ok · 1 run failed · 2 usage · 3 configuration (missing key, unknown provider)
            4 endpoint or MCP server unreachable · 5 rate limited · 130 cancelled (Ctrl-C)
`;
