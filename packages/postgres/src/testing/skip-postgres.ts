/**
 * True when the Postgres tests must be skipped: ONLY when TINYAGENTS_SKIP_POSTGRES=1 is set
 * (never because Postgres is missing: then `startTestPostgres` fails with how to install it).
 * Says so on stderr, once per process, so a skip is never silent.
 */
export function skipPostgres(): boolean {
  if (process.env.TINYAGENTS_SKIP_POSTGRES !== "1") return false;
  if (!warned) {
    warned = true;
    console.warn(
      "Postgres tests SKIPPED: TINYAGENTS_SKIP_POSTGRES=1 is set (unset it to run them; CI runs them).",
    );
  }
  return true;
}

let warned = false;
