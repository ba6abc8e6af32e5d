/** One thing to redact. */
export interface RedactionPattern {
  /** Names the kind of data; the default mask is `[REDACTED:<name>]`. */
  name: string;
  /** What to find (the `g` flag is added when missing; must not match the empty string). */
  pattern: RegExp;
  /** Extra check on each match (for example a Luhn checksum); false keeps the match. */
  validate?: (match: string) => boolean;
  /**
   * For streamed text: what the beginning of a match looks like while it is still arriving, for
   * patterns that can need more characters to match than the middleware's `deltaHoldback` (a
   * JWT, a PEM block). Text from a match of `partial` that reaches the end of what has streamed
   * so far is held back (up to 16 KiB) until it completes or stops matching.
   */
  partial?: RegExp;
}

/**
 * Built-in PII and secret patterns: e-mail addresses, payment card numbers (Luhn-checked), US
 * social security numbers, API keys (OpenAI/Anthropic `sk-…`, AWS access key ids, GitHub and
 * Slack tokens), bearer tokens, JWTs and PEM private keys.
 */
export const DEFAULT_REDACTION_PATTERNS: readonly RedactionPattern[] = [
  {
    name: "private_key",
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    partial: /-----BEGIN [A-Z ]*PRIVATE KEY-----(?:(?!-----END [A-Z ]*PRIVATE KEY-----)[\s\S])*/g,
  },
  {
    name: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    partial: /\beyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}/g,
  },
  { name: "bearer_token", pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  { name: "api_key", pattern: /\bsk-[A-Za-z0-9_-]{20,}/g },
  { name: "aws_access_key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: "github_token", pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g },
  { name: "slack_token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "email", pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g },
  { name: "credit_card", pattern: /\b\d(?:[ -]?\d){12,18}\b/g, validate: luhn },
  { name: "us_ssn", pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
];

/** The Luhn checksum of the digits in `candidate` (separators ignored). */
export function luhn(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
