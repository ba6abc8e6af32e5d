import { type JsonValue, registeredSecrets } from "@tinyagents/inference";

/** What a {@link Redactor} scrubs. */
export interface RedactionOptions {
  /**
   * Extra field names whose values are replaced wholesale, matched case-insensitively and
   * ignoring `-` and `_` (`"X-Api-Key"` = `"x_api_key"` = `"xapikey"`).
   */
  fields?: readonly string[];
  /** Extra patterns replaced inside every string (use the `g` flag). */
  patterns?: readonly RegExp[];
  /** Keep the built-in field names and secret shapes (default true). */
  defaults?: boolean;
  /** What a secret becomes (default `"[REDACTED]"`). */
  replacement?: string;
}

/** Field names scrubbed by default (normalized: lower case, no `-`/`_`). */
export const DEFAULT_REDACTED_FIELDS: readonly string[] = [
  "authorization",
  "proxyauthorization",
  "xapikey",
  "apikey",
  "apitoken",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "authtoken",
  "sessiontoken",
  "token",
  "secret",
  "clientsecret",
  "password",
  "passwd",
  "cookie",
  "setcookie",
  "privatekey",
  "secretaccesskey",
  "awssecretaccesskey",
];

/** Field-name endings that also mark a secret (`openaiApiKey`, `clientSecret`, `dbPassword`, `githubToken`). */
const SECRET_SUFFIXES = ["apikey", "secret", "password", "token", "privatekey", "secretkey", "authorization"];

/**
 * Secret shapes scrubbed inside any string by default: OpenAI-style `sk-...` and Anthropic
 * `sk-ant-...` keys, `Bearer` tokens, `x-api-key` / `api_key` / `password` assignments, AWS
 * access key ids and secret keys, JWTs, GitHub, Google and Slack tokens. `$1` keeps a label.
 */
export const DEFAULT_SECRET_PATTERNS: readonly { pattern: RegExp; keep?: boolean }[] = [
  { pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g },
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keep: true },
  {
    pattern:
      /\b((?:x-api-key|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret|password|aws_secret_access_key)["']?\s*[:=]\s*["']?)[^\s"',;&}]{4,}/gi,
    keep: true,
  },
  { pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b/g },
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
];

/**
 * The shortest string any default pattern matches: `secret=` or `apikey:` and 4 characters (11);
 * every other default shape is longer (`sk-ant-` + 8: 15, `Bearer ` + 8: 15, AWS ids: 20, ...).
 * Shorter strings skip the patterns (most strings of an observation are short: types, ids, names).
 */
const DEFAULT_PATTERNS_MIN_LENGTH = 11;

/** Slots of the clean-string cache (a power of two; a string's slot is its length modulo this). */
const CLEAN_SLOTS = 32;
/** Longer strings are not cached (comparing them would cost about as much as checking them). */
const CLEAN_MAX_LENGTH = 64;

/** What a redactor matches: derived from its options once, shared by every default-configured one. */
interface RedactorConfig {
  readonly fields: ReadonlySet<string>;
  readonly suffixes: readonly string[];
  readonly patterns: readonly { pattern: RegExp; keep: boolean }[];
  readonly precheck: RegExp | undefined;
  /** No pattern matches a string shorter than this (0 when custom patterns make it unknown). */
  readonly minMatch: number;
  /** Field name -> secret?, memoized (bounded): a pure function of the fields and suffixes. */
  readonly fieldVerdicts: Map<string, boolean>;
  /**
   * Strings recently found clean, one per slot (direct-mapped by length): the run ids, call ids,
   * event types and names repeated by every observation of a run skip the checks. Valid for the
   * `registeredSecrets()` list it was filled under (a new model credential empties it).
   */
  readonly clean: { strings: (string | undefined)[]; under: readonly string[] | undefined };
}

function buildConfig(options: RedactionOptions): RedactorConfig {
  const defaults = options.defaults ?? true;
  const patterns = [
    ...(defaults ? DEFAULT_SECRET_PATTERNS : []).map((p) => ({ pattern: p.pattern, keep: p.keep === true })),
    ...(options.patterns ?? []).map((pattern) => ({ pattern, keep: false })),
  ];
  return {
    fields: new Set([
      ...(defaults ? DEFAULT_REDACTED_FIELDS : []),
      ...(options.fields ?? []).map(normalizeField),
    ]),
    suffixes: defaults ? SECRET_SUFFIXES : [],
    patterns,
    // One cheap test per string before running the individual replacements.
    precheck:
      patterns.length === 0
        ? undefined
        : new RegExp(patterns.map((p) => `(?:${p.pattern.source})`).join("|"), "i"),
    minMatch: options.patterns !== undefined && options.patterns.length > 0 ? 0 : DEFAULT_PATTERNS_MIN_LENGTH,
    fieldVerdicts: new Map(),
    clean: { strings: new Array<string | undefined>(CLEAN_SLOTS).fill(undefined), under: undefined },
  };
}

// The configs of redactors without custom fields or patterns, by `defaults`: an observability
// pipeline per run (as the CLI attaches) would otherwise rebuild the sets and the combined regexp
// and relearn every field verdict for each run.
const sharedConfigs = new Map<boolean, RedactorConfig>();

function configFor(options: RedactionOptions): RedactorConfig {
  if (options.fields !== undefined || options.patterns !== undefined) return buildConfig(options);
  const defaults = options.defaults ?? true;
  let config = sharedConfigs.get(defaults);
  if (config === undefined) {
    config = buildConfig({ defaults });
    sharedConfigs.set(defaults, config);
  }
  return config;
}

/**
 * Scrubs secrets from JSON data: values of secret-looking field names are replaced wholesale,
 * secret shapes inside strings are replaced in place. Copy-on-write: unchanged subtrees are
 * returned as they are (no allocation), so clean events cost one walk.
 */
export class Redactor {
  private readonly fields: ReadonlySet<string>;
  private readonly suffixes: readonly string[];
  private readonly patterns: readonly { pattern: RegExp; keep: boolean }[];
  private readonly precheck: RegExp | undefined;
  private readonly minMatch: number;
  private readonly replacement: string;
  /** `replacement` as a `String.replace` pattern: its `$` escaped, so `"$&"` cannot re-insert the match. */
  private readonly replacementPattern: string;
  private readonly fieldVerdicts: Map<string, boolean>;
  private readonly clean: RedactorConfig["clean"];
  /**
   * No custom `patterns`: the secret shapes are the built-in ones, which treat every decimal digit
   * alike (no digit literal, digits only in classes that hold all ten), so whether they match a
   * string does not depend on which digits it has — only on where (event ids: `<stream>-evt-<n>`).
   */
  readonly builtInShapesOnly: boolean;

  constructor(options: RedactionOptions = {}) {
    const config = configFor(options);
    this.builtInShapesOnly = options.patterns === undefined || options.patterns.length === 0;
    this.replacement = options.replacement ?? "[REDACTED]";
    this.replacementPattern = this.replacement.replaceAll("$", "$$$$");
    this.fields = config.fields;
    this.suffixes = config.suffixes;
    this.patterns = config.patterns;
    this.precheck = config.precheck;
    this.minMatch = config.minMatch;
    this.fieldVerdicts = config.fieldVerdicts;
    this.clean = config.clean;
  }

  /** A copy of `value` with secrets scrubbed (the same object when nothing matched). */
  redact<T extends JsonValue>(value: T): T {
    return this.walk(value) as T;
  }

  /**
   * Scrub secret shapes from one string, and the configured credentials of every model in the
   * process (`registeredSecrets`: header values and base-URL query values, whatever their names).
   */
  redactString(text: string): string {
    const secrets = registeredSecrets();
    const clean = this.clean;
    if (clean.under !== secrets) {
      clean.strings.fill(undefined);
      clean.under = secrets;
    }
    const slot = text.length & (CLEAN_SLOTS - 1);
    if (clean.strings[slot] === text) return text;
    let out = text;
    for (let i = 0; i < secrets.length; i++) {
      const secret = secrets[i] as string;
      if (out.includes(secret)) out = out.split(secret).join(this.replacement);
    }
    if (this.precheck === undefined || out.length < this.minMatch || !this.precheck.test(out)) {
      if (out === text && text.length <= CLEAN_MAX_LENGTH) clean.strings[slot] = text;
      return out;
    }
    for (const { pattern, keep } of this.patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, keep ? `$1${this.replacementPattern}` : this.replacementPattern);
    }
    return out;
  }

  /**
   * Where {@link redactString} finds secrets in `text`: the occurrences of the registered model
   * credentials and the matches of the secret shapes (a `keep` shape's label excluded: `Bearer `
   * stays), as sorted `[start, end, start, end, ...]` offsets, overlapping and adjacent ranges
   * merged. Every shape is matched against `text` itself (`redactString` runs each on the previous
   * one's output), so the ranges cover at least what `redactString` replaces, except where a
   * replacement itself completes a shape. A shared empty array when nothing matched.
   */
  secretRanges(text: string): readonly number[] {
    const secrets = registeredSecrets();
    const clean = this.clean;
    if (clean.under !== secrets) {
      clean.strings.fill(undefined);
      clean.under = secrets;
    }
    if (clean.strings[text.length & (CLEAN_SLOTS - 1)] === text) return NO_RANGES;
    const ranges: number[] = [];
    for (let i = 0; i < secrets.length; i++) {
      const secret = secrets[i] as string;
      if (secret.length === 0) continue;
      for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length))
        ranges.push(at, at + secret.length);
    }
    // The shapes see the credentials masked, as `redactString`'s shapes see them replaced: a key
    // glued to a credential (`<credential>sk-...`) gets its word boundary there. The mask keeps
    // the length, so offsets stay those of `text`.
    const shaped = ranges.length === 0 ? text : maskRanges(text, ranges);
    if (this.precheck !== undefined && shaped.length >= this.minMatch && this.precheck.test(shaped)) {
      for (const { pattern, keep } of this.patterns) {
        pattern.lastIndex = 0;
        for (let match = pattern.exec(shaped); match !== null; match = pattern.exec(shaped)) {
          const end = match.index + match[0].length;
          // The keep shapes' label (`$1`) opens their match.
          const start = keep ? match.index + (match[1]?.length ?? 0) : match.index;
          if (end > start) ranges.push(start, end);
          if (!pattern.global) break;
          if (match[0].length === 0) pattern.lastIndex++;
        }
        pattern.lastIndex = 0;
      }
    }
    return ranges.length === 0 ? NO_RANGES : mergeRanges(ranges);
  }

  /**
   * `text` with each of `ranges` (`[start, end, ...]` pairs, any order, overlapping allowed)
   * replaced by the replacement, overlapping and adjacent ranges becoming one replacement.
   */
  replaceRanges(text: string, ranges: readonly number[]): string {
    if (ranges.length === 0) return text;
    const merged = mergeRanges(ranges);
    let out = "";
    let from = 0;
    for (let i = 0; i < merged.length; i += 2) {
      out += text.slice(from, merged[i]) + this.replacement;
      from = merged[i + 1] as number;
    }
    return out + text.slice(from);
  }

  /** Whether a field name marks a secret. */
  isSecretField(name: string): boolean {
    let verdict = this.fieldVerdicts.get(name);
    if (verdict === undefined) {
      const normalized = normalizeField(name);
      verdict = this.fields.has(normalized) || this.suffixes.some((suffix) => normalized.endsWith(suffix));
      if (this.fieldVerdicts.size < 10_000) this.fieldVerdicts.set(name, verdict);
    }
    return verdict;
  }

  private walk(value: JsonValue): JsonValue {
    if (typeof value === "string") return this.redactString(value);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as JsonValue;
        const next = this.walk(item);
        if (next !== item) {
          copy ??= value.slice();
          copy[i] = next;
        }
      }
      return copy ?? value;
    }
    let copy: Record<string, JsonValue> | undefined;
    // for-in, not Object.keys: no key array per object (JSON data has no inherited enumerable keys).
    for (const key in value) {
      const item = value[key] as JsonValue;
      const next =
        this.isSecretField(key) && item !== null && item !== "" ? this.replacement : this.walk(item);
      if (next !== item) {
        copy ??= { ...value };
        copy[key] = next;
      }
    }
    return copy ?? value;
  }
}

const NO_RANGES: readonly number[] = Object.freeze([]);

/** `text` with each `[start, end)` of `ranges` replaced by `[###]` of the same length. */
function maskRanges(text: string, ranges: readonly number[]): string {
  let out = "";
  let from = 0;
  const sorted = mergeRanges([...ranges]);
  for (let i = 0; i < sorted.length; i += 2) {
    const start = sorted[i] as number;
    const end = sorted[i + 1] as number;
    const length = end - start;
    out += text.slice(from, start) + (length < 2 ? "#" : `[${"#".repeat(length - 2)}]`);
    from = end;
  }
  return out + text.slice(from);
}
/** `[start, end, ...]` pairs sorted by start, overlapping and adjacent ones merged. */
function mergeRanges(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i] as number, ranges[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [start, end] of pairs) {
    const last = out.length - 1;
    if (last > 0 && start <= (out[last] as number)) out[last] = Math.max(out[last] as number, end);
    else out.push(start, end);
  }
  return out;
}

function normalizeField(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}
