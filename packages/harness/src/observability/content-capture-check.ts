import type { AgentEventOf } from "../contracts/agent-event.js";

/** Receives a content-capture warning (default: {@link defaultContentWarning}). */
export type ContentWarning = (message: string) => void;

const emitted = new Set<string>();

/**
 * Where content-capture warnings go by default: one `process.emitWarning` line on stderr (code
 * `TINYAGENTS_CONTENT_CAPTURE`), each distinct message once per process; `console.warn` where
 * there is no `process` (a browser).
 */
export function defaultContentWarning(message: string): void {
  if (emitted.has(message)) return;
  emitted.add(message);
  const proc = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process;
  if (typeof proc?.emitWarning === "function")
    proc.emitWarning(message, { code: "TINYAGENTS_CONTENT_CAPTURE" });
  else console.warn(message);
}

/**
 * Trace content needs two switches: the exporter's `captureContent` (what it puts on spans) and
 * `traceDetailsMiddleware({ captureContent: true })` (what the run records). With only one set,
 * spans carry no prompts or answers; this check says so, once, naming the missing half.
 */
export class ContentCaptureCheck {
  private warned = false;

  constructor(
    private readonly exporter: string,
    private readonly capture: boolean,
    private readonly warn: ContentWarning = defaultContentWarning,
  ) {}

  /**
   * A call's request details arrived (`model.started` details, read as the `model.request` of
   * earlier journals): do they carry content when the exporter wants it (and vice versa)?
   */
  request(event: AgentEventOf<"model.request">): void {
    if (this.warned) return;
    const recorded = event.inputMessages !== undefined;
    if (this.capture && !recorded) {
      this.say(
        `${this.exporter} has captureContent: true, but traceDetailsMiddleware records no content, so spans ` +
          "carry no prompts or answers: register traceDetailsMiddleware({ captureContent: true }) on the agent",
      );
    } else if (!this.capture && recorded) {
      this.say(
        `traceDetailsMiddleware({ captureContent: true }) records content, but ${this.exporter} has ` +
          `captureContent off, so its spans carry no prompts or answers: pass { captureContent: true } to ${this.exporter} too`,
      );
    }
  }

  /** A model call ended; `described` says whether request details were seen for it. */
  completed(described: boolean): void {
    if (this.warned || !this.capture || described) return;
    this.say(
      `${this.exporter} has captureContent: true, but no traceDetailsMiddleware is registered, so spans carry ` +
        "no prompts or answers: register traceDetailsMiddleware({ captureContent: true }) on the agent",
    );
  }

  private say(message: string): void {
    this.warned = true;
    this.warn(message);
  }
}
