import {
  describe,
  expectArray,
  expectBoolean,
  expectJsonObject,
  expectNumber,
  expectObject,
  expectOneOf,
  expectString,
  fail,
  join,
  optional,
} from "../message/field-checks.js";
import { validateMessages } from "../message/validate.js";
import type { ToolSchema } from "../tool/tool-schema.js";
import type { ModelRequest } from "./model-request.js";

const CAPABILITY_KEYS = [
  "tools",
  "parallelToolCalls",
  "streaming",
  "nativeStructuredOutput",
  "vision",
  "reasoning",
];
const SEGMENT_ROLES = ["system", "tools", "instructions", "history", "volatile"] as const;

/**
 * Check an untrusted {@link ModelRequest} and return it, typed, without copying. Throws a
 * `validation` `TinyAgentsError` naming the field (`messages[2].role: ...`, `temperature: ...`,
 * `tools[0].parameters: ...`) with `details.field` set to it. Numbers must be finite
 * (`temperature` >= 0, `topP` in [0, 1], `maxTokens` an integer >= 1, `timeoutMs`,
 * `headersTimeoutMs` and `streamIdleTimeoutMs` >= 0, `seed` an integer). Unknown extra fields are tolerated.
 */
export function validateModelRequest(value: unknown): ModelRequest {
  const request = expectObject(value, "request", "a request object such as { messages: [...] }");
  validateMessages(request.messages, "messages");
  optional(request, "tools", "", validateToolSchemas);
  optional(request, "toolChoice", "", validateToolChoice);
  optional(request, "parallelToolCalls", "", expectBoolean);
  optional(request, "responseFormat", "", validateResponseFormat);
  optional(request, "model", "", (v, f) => expectString(v, f, true));
  optional(request, "modelHints", "", (v, f) =>
    expectArray(v, f).forEach((hint, i) => {
      const path = `${f}[${i}]`;
      const record = expectObject(hint, path, "a model hint { model, priority }");
      expectString(record.model, join(path, "model"), true);
      expectNumber(record.priority, join(path, "priority"));
      optional(record, "reason", path, expectString);
    }),
  );
  optional(request, "reusePreviousModel", "", expectBoolean);
  optional(request, "requiredCapabilities", "", validateCapabilities);
  optional(request, "temperature", "", (v, f) => expectNumber(v, f, { min: 0 }));
  optional(request, "topP", "", (v, f) => expectNumber(v, f, { min: 0, max: 1 }));
  optional(request, "maxTokens", "", (v, f) => expectNumber(v, f, { min: 1, integer: true }));
  optional(request, "stop", "", validateStringArray);
  optional(request, "seed", "", (v, f) => expectNumber(v, f, { integer: true }));
  optional(request, "timeoutMs", "", (v, f) => expectNumber(v, f, { min: 0 }));
  optional(request, "streamIdleTimeoutMs", "", (v, f) => expectNumber(v, f, { min: 0 }));
  optional(request, "headersTimeoutMs", "", (v, f) => expectNumber(v, f, { min: 0 }));
  optional(request, "retry", "", (v, f) => {
    const retry = expectObject(v, f, "a retry policy object");
    optional(retry, "maxRetries", f, (n, g) => expectNumber(n, g, { min: 0, integer: true }));
    optional(retry, "initialBackoffMs", f, (n, g) => expectNumber(n, g, { min: 0 }));
    optional(retry, "maxBackoffMs", f, (n, g) => expectNumber(n, g, { min: 0 }));
  });
  optional(request, "responseCache", "", (v, f) => {
    const cache = expectObject(v, f, "a response cache policy { enabled }");
    expectBoolean(cache.enabled, join(f, "enabled"));
    optional(cache, "ttlMs", f, (n, g) => expectNumber(n, g, { min: 0 }));
  });
  optional(request, "promptCache", "", (v, f) => {
    const cache = expectObject(v, f, "a prompt cache policy { enabled }");
    expectBoolean(cache.enabled, join(f, "enabled"));
    optional(cache, "key", f, expectString);
    optional(cache, "retention", f, (r, g) => expectOneOf(r, g, ["short", "long"] as const, "retention"));
  });
  optional(request, "cacheSegments", "", validateCacheSegments);
  optional(request, "promptFingerprint", "", expectString);
  optional(request, "tags", "", validateStringArray);
  optional(request, "metadata", "", (v, f) => expectJsonObject(v, f));
  optional(request, "providerOptions", "", (v, f) => expectJsonObject(v, f));
  optional(request, "reasoning", "", validateReasoning);
  return value as ModelRequest;
}

/** Check tool declarations: each needs a non-empty `name`, a `description` and object `parameters`. */
export function validateToolSchemas(value: unknown, path = "tools"): ToolSchema[] {
  const tools = expectArray(value, path, "an array of tool schemas");
  for (let i = 0; i < tools.length; i++) {
    const field = `${path}[${i}]`;
    const tool = expectObject(tools[i], field, "a tool schema { name, description, parameters }");
    if (typeof tool.name !== "string" || tool.name === "") {
      fail(join(field, "name"), "a tool schema needs a non-empty string name");
    }
    expectString(tool.description, join(field, "description"));
    if (typeof tool.parameters !== "object" || tool.parameters === null || Array.isArray(tool.parameters)) {
      fail(
        join(field, "parameters"),
        `expected a JSON Schema object, got ${describe(tool.parameters)}; use { type: "object", properties: {} } for a tool without arguments`,
      );
    }
    expectJsonObject(tool.parameters, join(field, "parameters"));
    optional(tool, "strict", field, expectBoolean);
  }
  return value as ToolSchema[];
}

function validateToolChoice(value: unknown, field: string): void {
  if (value === "auto" || value === "none" || value === "required") return;
  const choice = expectObject(value, field, '"auto", "none", "required" or { type: "tool", name }');
  expectOneOf(choice.type, join(field, "type"), ["tool"] as const, "tool choice type");
  expectString(choice.name, join(field, "name"), true);
}

function validateResponseFormat(value: unknown, field: string): void {
  const format = expectObject(value, field, "a response format object");
  const type = expectOneOf(
    format.type,
    join(field, "type"),
    ["text", "json_object", "json_schema"] as const,
    "type",
  );
  if (type !== "json_schema") return;
  expectString(format.name, join(field, "name"), true);
  expectJsonObject(format.schema, join(field, "schema"), "a JSON Schema object");
  optional(format, "description", field, expectString);
  optional(format, "strict", field, expectBoolean);
}

function validateCapabilities(value: unknown, field: string): void {
  const caps = expectObject(value, field, "a capability set object");
  for (const key of CAPABILITY_KEYS) optional(caps, key, field, expectBoolean);
  optional(caps, "minContextWindow", field, (v, f) => expectNumber(v, f, { min: 0 }));
  optional(caps, "minOutputTokens", field, (v, f) => expectNumber(v, f, { min: 0 }));
}

function validateCacheSegments(value: unknown, field: string): void {
  const segments = expectArray(value, field, "an array of cache segments");
  for (let i = 0; i < segments.length; i++) {
    const path = `${field}[${i}]`;
    const segment = expectObject(segments[i], path, "a cache segment { id, role, cacheable, messageCount }");
    expectString(segment.id, join(path, "id"), true);
    expectOneOf(segment.role, join(path, "role"), SEGMENT_ROLES, "segment role");
    expectBoolean(segment.cacheable, join(path, "cacheable"));
    expectNumber(segment.messageCount, join(path, "messageCount"), { min: 0, integer: true });
    optional(segment, "ttl", path, (v, f) => expectOneOf(v, f, ["5m", "1h"] as const, "cache TTL"));
  }
}

function validateReasoning(value: unknown, field: string): void {
  const reasoning = expectObject(value, field, "a reasoning settings object");
  const efforts = ["minimal", "low", "medium", "high"] as const;
  optional(reasoning, "effort", field, (v, f) => expectOneOf(v, f, efforts, "effort"));
  optional(reasoning, "budgetTokens", field, (v, f) => expectNumber(v, f, { min: 0, integer: true }));
  const summaries = ["auto", "concise", "detailed"] as const;
  optional(reasoning, "summary", field, (v, f) => expectOneOf(v, f, summaries, "summary"));
}

function validateStringArray(value: unknown, field: string): void {
  const items = expectArray(value, field, "an array of strings");
  for (let i = 0; i < items.length; i++) expectString(items[i], `${field}[${i}]`);
}
