import type { JsonObject } from "@tinyagents/inference";
import type { HookContext, Middleware } from "../middleware.js";
import { callable, middlewareName, optionError } from "./option-checks.js";

/** Severity of a log entry. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** One structured log entry. Plain JSON data; never holds prompts, answers or tool payloads. */
export interface LogEntry {
  level: LogLevel;
  /** What happened: `run.start`, `model.request`, `model.response`, `tool.call`, `tool.result`, `run.end`, `run.error`. */
  event: string;
  runId: string;
  fields: JsonObject;
}

/** Receives log entries (adapt it to pino, winston, console, OpenTelemetry logs, ...). */
export type Logger = (entry: LogEntry) => void;

/** A logger that drops everything (the default). */
export const silentLogger: Logger = () => {};

/** A logger printing one JSON line per entry at or above `minLevel` to the console. */
export function consoleLogger(minLevel: LogLevel = "info"): Logger {
  return (entry) => {
    if (RANK[entry.level] < RANK[minLevel]) return;
    const line = JSON.stringify(entry);
    if (entry.level === "error") console.error(line);
    else if (entry.level === "warn") console.warn(line);
    else console.log(line);
  };
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Options of {@link loggingMiddleware}. */
export interface LoggingOptions {
  /** Where entries go (default {@link silentLogger}). */
  logger?: Logger;
  /** Entries below this level are not built at all (default `"debug"`: everything goes to the logger). */
  level?: LogLevel;
  /** Middleware name (default `"logging"`). */
  name?: string;
}

/**
 * Structured logging of a run's lifecycle through a pluggable {@link Logger}: run start and end,
 * model requests (message and tool counts) and responses (finish reason, tool calls, token
 * counts), tool calls and results (error flag, duration), failures (code and message). Metadata
 * only — prompts, answers, arguments and results are never logged. Silent by default.
 * Throws `validation` at construction for a bad logger or level.
 */
export function loggingMiddleware<State = unknown, Ctx = unknown>(
  options: LoggingOptions = {},
): Middleware<State, Ctx> {
  const name = middlewareName("logging", options.name);
  const logger = options.logger === undefined ? silentLogger : callable(name, "logger", options.logger);
  const level = options.level ?? "debug";
  if (!(level in RANK)) throw optionError(name, "level", "must be one of debug, info, warn, error");
  const log = (ctx: HookContext<State, Ctx>, at: LogLevel, event: string, fields: () => JsonObject) => {
    if (logger === silentLogger || RANK[at] < RANK[level]) return;
    logger({ level: at, event, runId: ctx.run.runId, fields: fields() });
  };

  return {
    name,
    changes: "metadata",
    beforeAgent(ctx) {
      log(ctx, "info", "run.start", () => ({
        depth: ctx.run.depth,
        ...(ctx.run.threadId ? { threadId: ctx.run.threadId } : {}),
      }));
    },
    beforeModel(ctx, request) {
      log(ctx, "debug", "model.request", () => ({
        callId: ctx.callId ?? "",
        messages: request.messages.length,
        tools: request.tools?.length ?? 0,
        ...(request.model === undefined ? {} : { model: request.model }),
      }));
    },
    afterModel(ctx, response) {
      log(ctx, "info", "model.response", () => ({
        callId: ctx.callId ?? "",
        model: response.resolvedModel?.name ?? "",
        finishReason: response.finishReason ?? "unknown",
        toolCalls: response.message.toolCalls.length,
        inputTokens: response.usage?.inputTokens ?? 0,
        outputTokens: response.usage?.outputTokens ?? 0,
      }));
    },
    beforeTool(ctx, call) {
      log(ctx, "debug", "tool.call", () => ({ callId: call.id, tool: call.name }));
    },
    afterTool(ctx, result) {
      log(ctx, result.isError ? "warn" : "info", "tool.result", () => ({
        callId: result.callId,
        tool: result.toolName,
        isError: result.isError,
        elapsedMs: result.elapsedMs,
      }));
    },
    afterAgent(ctx, run) {
      log(ctx, "info", "run.end", () => ({
        modelCalls: run.modelCalls,
        toolCalls: run.toolCalls,
        stopReason: run.stopReason,
      }));
    },
    onError(ctx, error) {
      log(ctx, "error", "run.error", () => ({ code: error.code, message: error.message }));
    },
  };
}
