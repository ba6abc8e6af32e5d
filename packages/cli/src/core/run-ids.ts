import { randomBytes } from "node:crypto";

/** A sortable, readable run id: `run-20250310-123456-a1b2c3`. */
export function newRunId(now = new Date()): string {
  const iso = now.toISOString().replace(/[-:]/g, "");
  return `run-${iso.slice(0, 8)}-${iso.slice(9, 15)}-${randomBytes(3).toString("hex")}`;
}

/** A new chat thread id: `chat-20250310-123456-a1b2`. */
export function newThreadId(now = new Date()): string {
  const iso = now.toISOString().replace(/[-:]/g, "");
  return `chat-${iso.slice(0, 8)}-${iso.slice(9, 15)}-${randomBytes(2).toString("hex")}`;
}
