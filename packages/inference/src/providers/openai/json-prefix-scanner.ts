/**
 * Incremental scanner that tracks how much of a tool call's argument text is a valid prefix of
 * a strict JSON object that no repair can change (the "safe" prefix).
 *
 * Safe means: the text from the opening `{` up to here is a valid strict-JSON prefix, a comma is
 * only included once the token after it has started (a trailing comma may be removed by
 * repair), and nothing after the object closes is included. Leading whitespace is skipped (the
 * safe prefix starts at the `{`). The first character that breaks strict JSON freezes the safe
 * prefix for good.
 *
 * Because validity is prefix-closed, the final safe prefix depends only on the whole text, not
 * on how it was fragmented — which is what lets streaming and unary parsing agree.
 */
export class JsonPrefixScanner {
  /** Index (in the fed text) where the object starts, or -1 before the `{`. */
  start = -1;
  /** End (exclusive) of the safe prefix in the fed text. */
  safeEnd = 0;
  /** True once the top-level object has closed. */
  complete = false;
  private length = 0;
  private cursor = 0;
  private frozen = false;
  /** Container stack: 1 = object, 2 = array. */
  private readonly stack: number[] = [];
  private state = State.Start;
  private literal = "";
  private literalPos = 0;
  private unicodeLeft = 0;
  private stringIsKey = false;
  private commaPending = false;

  /** Feed the next fragment. */
  feed(text: string): void {
    if (this.frozen) {
      this.length += text.length;
      return;
    }
    for (let i = 0; i < text.length; i++) {
      const wasComplete = this.complete;
      this.cursor = this.length + i;
      if (!this.step(text.charCodeAt(i))) {
        this.frozen = true;
        break;
      }
      if (this.start >= 0 && !this.commaPending && !wasComplete) this.safeEnd = this.length + i + 1;
    }
    this.length += text.length;
  }

  private step(c: number): boolean {
    switch (this.state) {
      case State.Start:
        if (isSpace(c)) return true;
        if (c !== OPEN_BRACE) return false;
        this.start = this.cursor;
        this.openContainer(1);
        return true;
      case State.InString:
        if (this.unicodeLeft > 0) {
          if (!isHex(c)) return false;
          this.unicodeLeft--;
          return true;
        }
        if (c === BACKSLASH) {
          this.state = State.Escape;
          return true;
        }
        if (c === QUOTE) {
          this.state = this.stringIsKey ? State.Colon : State.AfterValue;
          return true;
        }
        return c >= 0x20;
      case State.Escape:
        if (c === 0x75 /* u */) {
          this.unicodeLeft = 4;
          this.state = State.InString;
          return true;
        }
        this.state = State.InString;
        return ESCAPES.has(c);
      case State.Number:
        if (isNumberChar(c)) return true;
        this.state = State.AfterValue;
        return this.step(c);
      case State.Literal:
        if (c !== this.literal.charCodeAt(this.literalPos)) return false;
        this.literalPos++;
        if (this.literalPos === this.literal.length) this.state = State.AfterValue;
        return true;
      case State.After:
        return isSpace(c);
      default:
        return this.structural(c);
    }
  }

  private structural(c: number): boolean {
    if (isSpace(c)) return true;
    const top = this.stack[this.stack.length - 1];
    switch (this.state) {
      case State.KeyOrEnd:
        if (c === CLOSE_BRACE) return this.closeContainer(1);
        if (c !== QUOTE) return false;
        this.beginString(true);
        return true;
      case State.Key:
        if (c !== QUOTE) return false;
        this.beginString(true);
        return true;
      case State.Colon:
        if (c !== COLON) return false;
        this.state = State.Value;
        return true;
      case State.ValueOrEnd:
        if (c === CLOSE_BRACKET) return this.closeContainer(2);
        return this.beginValue(c);
      case State.Value:
        return this.beginValue(c);
      case State.AfterValue:
        if (c === COMMA) {
          this.commaPending = true;
          this.state = top === 1 ? State.Key : State.Value;
          return true;
        }
        if (c === CLOSE_BRACE && top === 1) return this.closeContainer(1);
        if (c === CLOSE_BRACKET && top === 2) return this.closeContainer(2);
        return false;
      default:
        return false;
    }
  }

  private beginString(isKey: boolean): void {
    this.commaPending = false;
    this.stringIsKey = isKey;
    this.state = State.InString;
  }

  private beginValue(c: number): boolean {
    this.commaPending = false;
    if (c === QUOTE) {
      this.beginString(false);
      return true;
    }
    if (c === OPEN_BRACE) return this.openContainer(1);
    if (c === OPEN_BRACKET) return this.openContainer(2);
    if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      this.state = State.Number;
      return true;
    }
    const literal = c === 0x74 ? "true" : c === 0x66 ? "false" : c === 0x6e ? "null" : undefined;
    if (literal === undefined) return false;
    this.literal = literal;
    this.literalPos = 1;
    this.state = State.Literal;
    return true;
  }

  private openContainer(kind: number): boolean {
    this.stack.push(kind);
    this.state = kind === 1 ? State.KeyOrEnd : State.ValueOrEnd;
    return true;
  }

  private closeContainer(kind: number): boolean {
    if (this.stack.pop() !== kind) return false;
    if (this.stack.length === 0) {
      this.complete = true;
      this.state = State.After;
    } else {
      this.state = State.AfterValue;
    }
    return true;
  }
}

enum State {
  Start,
  KeyOrEnd,
  Key,
  Colon,
  Value,
  ValueOrEnd,
  AfterValue,
  InString,
  Escape,
  Number,
  Literal,
  After,
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ESCAPES: ReadonlySet<number> = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}
