/**
 * A small arithmetic evaluator for the `calculator` tool: its own tokenizer and recursive-descent
 * parser (no `eval`, no `Function`). Grammar, loosest binding first:
 *
 * ```
 * expr   := term (("+" | "-") term)*
 * term   := unary (("*" | "/" | "%") unary)*
 * unary  := ("+" | "-") unary | power
 * power  := atom ("^" unary)?            (right-associative: 2^3^2 = 2^9; -2^2 = -4)
 * atom   := number | constant | name "(" expr ("," expr)* ")" | "(" expr ")"
 * ```
 * Numbers: `12`, `3.5`, `.5`, `1e-3`, `1_000`. Constants: `pi`, `e`, `tau`. Functions: sqrt, cbrt,
 * abs, round, floor, ceil, trunc, sign, exp, ln, log (base 10; `log(x, b)` for base b), log2,
 * sin, cos, tan, asin, acos, atan, min, max, pow, hypot.
 */

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

type Fn = { arity: [number, number]; apply: (...args: number[]) => number };
const unary = (apply: (x: number) => number): Fn => ({ arity: [1, 1], apply: (x) => apply(x ?? Number.NaN) });
const FUNCTIONS: Readonly<Record<string, Fn>> = {
  sqrt: unary(Math.sqrt),
  cbrt: unary(Math.cbrt),
  abs: unary(Math.abs),
  round: unary(Math.round),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  trunc: unary(Math.trunc),
  sign: unary(Math.sign),
  exp: unary(Math.exp),
  ln: unary(Math.log),
  log2: unary(Math.log2),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  atan: unary(Math.atan),
  log: {
    arity: [1, 2],
    apply: (x = Number.NaN, b) => (b === undefined ? Math.log10(x) : Math.log(x) / Math.log(b)),
  },
  pow: { arity: [2, 2], apply: (x = Number.NaN, y = Number.NaN) => x ** y },
  min: { arity: [1, 100], apply: (...xs) => Math.min(...xs) },
  max: { arity: [1, 100], apply: (...xs) => Math.max(...xs) },
  hypot: { arity: [1, 100], apply: (...xs) => Math.hypot(...xs) },
};

/** Names the calculator knows (for error messages and the tool description). */
export const CALCULATOR_NAMES = { constants: Object.keys(CONSTANTS), functions: Object.keys(FUNCTIONS) };

/** The longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 2000;
const MAX_DEPTH = 100;

type Token = { kind: "num"; value: number; at: number } | { kind: "name" | "op"; text: string; at: number };

/** Raised for an expression that cannot be evaluated; the message says where and why. */
export class CalculatorError extends Error {
  override name = "CalculatorError";
}

/** Evaluate `source`; throws {@link CalculatorError} on bad syntax, unknown names or a non-finite result. */
export function evaluateExpression(source: string): number {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  const tokens = tokenize(source);
  if (tokens.length === 0) throw new CalculatorError("the expression is empty");
  let pos = 0;
  let depth = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (text: string): boolean => {
    const t = peek();
    return t !== undefined && t.kind === "op" && t.text === text;
  };
  const expect = (text: string): void => {
    if (!isOp(text)) throw new CalculatorError(`expected "${text}" ${where(peek())}`);
    pos++;
  };
  const nest = <T>(f: () => T): T => {
    if (++depth > MAX_DEPTH)
      throw new CalculatorError(`the expression nests deeper than ${MAX_DEPTH} levels`);
    try {
      return f();
    } finally {
      depth--;
    }
  };

  const expr = (): number =>
    nest(() => {
      let value = term();
      while (isOp("+") || isOp("-")) {
        const op = (tokens[pos++] as { text: string }).text;
        const right = term();
        value = op === "+" ? value + right : value - right;
      }
      return value;
    });
  const term = (): number => {
    let value = unaryExpr();
    while (isOp("*") || isOp("/") || isOp("%")) {
      const op = (tokens[pos++] as { text: string }).text;
      const right = unaryExpr();
      if ((op === "/" || op === "%") && right === 0) throw new CalculatorError("division by zero");
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  };
  const unaryExpr = (): number =>
    nest(() => {
      if (isOp("-")) {
        pos++;
        return -unaryExpr();
      }
      if (isOp("+")) {
        pos++;
        return unaryExpr();
      }
      return power();
    });
  const power = (): number => {
    const base = atom();
    if (!isOp("^")) return base;
    pos++;
    return base ** unaryExpr();
  };
  const atom = (): number => {
    const t = peek();
    if (t === undefined) throw new CalculatorError("the expression ends too early");
    if (t.kind === "num") {
      pos++;
      return t.value;
    }
    if (t.kind === "op" && t.text === "(") {
      pos++;
      const value = expr();
      expect(")");
      return value;
    }
    if (t.kind === "name") {
      pos++;
      const name = t.text.toLowerCase();
      if (isOp("(")) return call(name, t);
      const constant = Object.hasOwn(CONSTANTS, name) ? CONSTANTS[name] : undefined;
      if (constant === undefined) {
        throw new CalculatorError(
          `unknown name "${t.text}" ${where(t)}; constants: ${CALCULATOR_NAMES.constants.join(", ")}; functions: ${CALCULATOR_NAMES.functions.join(", ")}`,
        );
      }
      return constant;
    }
    throw new CalculatorError(`unexpected "${t.text}" ${where(t)}`);
  };
  const call = (name: string, t: Token): number => {
    const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
    if (fn === undefined) {
      throw new CalculatorError(
        `unknown function "${name}" ${where(t)}; known: ${CALCULATOR_NAMES.functions.join(", ")}`,
      );
    }
    expect("(");
    const args = [expr()];
    while (isOp(",")) {
      pos++;
      args.push(expr());
    }
    expect(")");
    const [min, max] = fn.arity;
    if (args.length < min || args.length > max) {
      throw new CalculatorError(
        `${name}() takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${args.length}`,
      );
    }
    return fn.apply(...args);
  };

  const value = expr();
  if (pos < tokens.length)
    throw new CalculatorError(`unexpected "${describe(tokens[pos])}" ${where(tokens[pos])}`);
  if (!Number.isFinite(value)) {
    throw new CalculatorError(
      `the result is not a finite number (${String(value)}): check the domain of functions`,
    );
  }
  return value;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re =
    /\s+|(\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/%^(),×÷])/y;
  while (re.lastIndex < source.length) {
    const at = re.lastIndex;
    const m = re.exec(source);
    if (m === null) throw new CalculatorError(`unexpected character "${source[at]}" at position ${at + 1}`);
    if (m[1] !== undefined) tokens.push({ kind: "num", value: Number(m[1].replaceAll("_", "")), at });
    else if (m[2] !== undefined) tokens.push({ kind: "name", text: m[2], at });
    else if (m[3] !== undefined) {
      const text = m[3] === "**" ? "^" : m[3] === "×" ? "*" : m[3] === "÷" ? "/" : m[3];
      tokens.push({ kind: "op", text, at });
    }
  }
  return tokens;
}

function describe(t: Token | undefined): string {
  if (t === undefined) return "end";
  return t.kind === "num" ? String(t.value) : t.text;
}

function where(t: Token | undefined): string {
  return t === undefined ? "at the end" : `at position ${t.at + 1}`;
}
