import type { ControlRequest } from "../contracts/control-request.js";

export type { ControlRequest } from "../contracts/control-request.js";

/** Precedence of a control request (higher wins). */
export function controlPrecedence(request: ControlRequest): number {
  return request.kind === "interrupt" ? 2 : 1;
}
