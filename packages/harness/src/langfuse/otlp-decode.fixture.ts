import { createRequire } from "node:module";

// Reads OTLP trace requests with the official OpenTelemetry proto definitions: the protobufjs code
// generated from opentelemetry-proto that @opentelemetry/otlp-transformer shipped up to 0.212 (a
// devDependency under an alias; later versions replaced it with a hand-written writer that cannot
// decode). Not our own reader.

interface Message {
  fromObject(value: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
const root = createRequire(import.meta.url)("otlp-transformer-protobufjs/build/src/generated/root.js");

/** The official `ExportTraceServiceRequest` message type. */
export const ExportTraceServiceRequest: Message =
  root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Convert the id fields (`traceId`, `spanId`, `parentSpanId`) of a decoded request. */
export function mapIds(value: unknown, convert: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapIds(item, convert));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      (key === "traceId" || key === "spanId" || key === "parentSpanId") && typeof item === "string"
        ? convert(item)
        : mapIds(item, convert);
  }
  return out;
}
export const hexToBase64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
export const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

/**
 * An OTLP protobuf `ExportTraceServiceRequest` as its OTLP/JSON form: int64s as decimal strings,
 * enums as numbers, ids as hex (OTLP/JSON's documented deviation from proto3 JSON), span
 * `status.code` always present. Throws on bytes that are not a valid message.
 */
export function decodeOtlpProtobuf(bytes: Uint8Array): Record<string, unknown> {
  const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes), {
    longs: String,
    enums: Number,
    bytes: String,
  });
  const json = mapIds(decoded, base64ToHex) as {
    resourceSpans?: { scopeSpans?: { spans?: { status?: { code?: number } }[] }[] }[];
  };
  for (const resource of json.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) span.status = { code: 0, ...span.status };
    }
  }
  return json as Record<string, unknown>;
}
