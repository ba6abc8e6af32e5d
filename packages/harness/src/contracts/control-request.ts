/**
 * Out-of-band control a middleware (or tool) can request. Honoured at the next safe checkpoint.
 * Precedence: `interrupt` > `stopWithFinal`; a pending request is never downgraded.
 */
export type ControlRequest = { kind: "stopWithFinal"; text: string } | { kind: "interrupt"; reason: string };
