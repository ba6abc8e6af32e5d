// Shared by the Restate test files: the explicit skip switch and a quiet SDK logger.

/** Why the Restate tests are skipped, or undefined when they run (they always run in CI). */
export const RESTATE_SKIP =
  process.env.TINYAGENTS_SKIP_RESTATE === "1"
    ? "TINYAGENTS_SKIP_RESTATE=1: Restate server tests skipped (they run in CI)"
    : undefined;

/** A Restate SDK logger that drops everything except errors (the tests assert on behaviour). */
export const quiet = (meta: { level: string }, message: unknown, ...rest: unknown[]): void => {
  if (meta.level === "error") console.error(message, ...rest);
};
