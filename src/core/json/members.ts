// An incremental reader of one large JSON object, fed in chunks: each top-level member's value is
// handed over whole, except the arrays named as streamed, whose elements are handed over one at a
// time — so a results document of a million entries is read with one entry in memory at a time.
// It finds where values begin and end (strings, escapes, nesting); parsing a value is the caller's.
// Pure: bytes in, callbacks out. Positions are byte offsets from the start of the input.

export class MembersError extends Error {
  constructor(
    message: string,
    /** Where the problem is: a byte offset from the start of the input. */
    readonly offset: number,
  ) {
    super(message);
  }
}

export interface MembersHandler {
  /** A top-level member whose value is not streamed: its key and the value's bytes. */
  member(key: string, value: Buffer, offset: number): void;
  /** One element of a streamed array member. */
  element(key: string, value: Buffer, offset: number): void;
  /** A streamed array member begins (before its elements, if any). */
  open?(key: string, offset: number): void;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

type State =
  | "start"
  | "key-or-end"
  | "key"
  | "colon"
  | "value"
  | "after-value"
  | "element-or-end"
  | "element"
  | "after-element"
  | "done";

/** The bytes of one value being read, which may span chunks. */
class Capture {
  parts: Buffer[] = [];
  depth = 0;
  inString = false;
  escaped = false;
  /** A number, true, false or null: it ends at the first byte that cannot continue it. */
  primitive = false;
  started = false;
  constructor(readonly offset: number) {}
}

export class MembersReader {
  private state: State = "start";
  private offset = 0;
  private key = "";
  private keyParts: Buffer[] = [];
  private keyEscaped = false;
  private keyOffset = 0;
  /** A member name the previous chunk ended inside of. */
  private continueKey = false;
  /** A value being read (it may have begun in an earlier chunk). */
  private value: Capture | null = null;

  constructor(
    private readonly streamed: ReadonlySet<string>,
    private readonly on: MembersHandler,
  ) {}

  feed(chunk: Buffer): void {
    // A name or a value the previous chunk ended inside of is read on first.
    let i = this.continueKey ? this.readKey(chunk, 0) : this.value !== null ? this.capture(chunk, 0) : 0;
    while (i < chunk.length) {
      const c = chunk[i]!;
      switch (this.state) {
        case "start":
          if (WS.has(c)) break;
          if (c !== 0x7b) this.fail("expected a JSON object ('{')", i);
          this.state = "key-or-end";
          break;
        case "key-or-end":
        case "key":
          if (WS.has(c)) break;
          if (c === 0x7d && this.state === "key-or-end") {
            this.state = "done";
            break;
          }
          if (c !== QUOTE) this.fail("expected a member name", i);
          this.keyParts = [];
          this.keyEscaped = false;
          this.keyOffset = this.offset + i;
          i = this.readKey(chunk, i + 1);
          continue;
        case "colon":
          if (WS.has(c)) break;
          if (c !== 0x3a) this.fail("expected ':'", i);
          this.state = "value";
          break;
        case "value":
          if (WS.has(c)) break;
          if (c === 0x5b && this.streamed.has(this.key)) {
            this.on.open?.(this.key, this.offset + i);
            this.state = "element-or-end";
            break;
          }
          this.value = new Capture(this.offset + i);
          i = this.capture(chunk, i);
          continue;
        case "after-value":
          if (WS.has(c)) break;
          if (c === 0x2c) this.state = "key";
          else if (c === 0x7d) this.state = "done";
          else this.fail("expected ',' or '}' after a member", i);
          break;
        case "element-or-end":
        case "element":
          if (WS.has(c)) break;
          if (c === 0x5d && this.state === "element-or-end") {
            this.state = "after-value";
            break;
          }
          this.value = new Capture(this.offset + i);
          i = this.capture(chunk, i);
          continue;
        case "after-element":
          if (WS.has(c)) break;
          if (c === 0x2c) this.state = "element";
          else if (c === 0x5d) this.state = "after-value";
          else this.fail("expected ',' or ']' after an element", i);
          break;
        case "done":
          if (!WS.has(c)) this.fail("unexpected data after the document", i);
          break;
      }
      i++;
    }
    this.offset += chunk.length;
  }

  /** The input has ended: it must have been exactly one object. */
  end(): void {
    if (this.state === "done") return;
    throw new MembersError(
      this.state === "start"
        ? "the file is empty"
        : `the document ends at byte ${this.offset} before it is complete (cut short?)`,
      this.offset,
    );
  }

  private fail(message: string, i: number): never {
    throw new MembersError(`${message} at byte ${this.offset + i}`, this.offset + i);
  }

  /** Read a member name from `from`; returns where reading stopped (the chunk's end, or past the closing quote). */
  private readKey(chunk: Buffer, from: number): number {
    let i = from;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.keyEscaped) this.keyEscaped = false;
      else if (c === BACKSLASH) this.keyEscaped = true;
      else if (c === QUOTE) break;
    }
    this.keyParts.push(chunk.subarray(from, i));
    if (i === chunk.length) {
      this.continueKey = true; // continued in the next chunk
      return i;
    }
    const raw = Buffer.concat(this.keyParts).toString("utf8");
    try {
      this.key = JSON.parse(`"${raw}"`) as string;
    } catch {
      throw new MembersError(`a member name that is not a JSON string at byte ${this.keyOffset}`, this.keyOffset);
    }
    this.continueKey = false;
    this.state = "colon";
    return i + 1;
  }

  /**
   * Capture a value from `from` (its first byte, or where the previous chunk left it); returns where
   * reading stopped. When the value is complete it is handed over and the state moves on.
   */
  private capture(chunk: Buffer, from: number): number {
    const v = this.value!;
    let i = from;
    if (!v.started) {
      v.started = true;
      const c = chunk[i]!;
      if (c === 0x7b || c === 0x5b) v.depth = 1;
      else if (c === QUOTE) v.inString = true;
      else v.primitive = true;
      i++;
    }
    let done = false;
    for (; i < chunk.length && !done; i++) {
      const c = chunk[i]!;
      if (v.inString) {
        if (v.escaped) v.escaped = false;
        else if (c === BACKSLASH) v.escaped = true;
        else if (c === QUOTE) {
          v.inString = false;
          if (v.depth === 0) done = true;
        }
      } else if (v.primitive) {
        if (WS.has(c) || c === 0x2c || c === 0x7d || c === 0x5d) {
          done = true;
          i--; // the delimiter belongs to what follows
        }
      } else if (c === QUOTE) v.inString = true;
      else if (c === 0x7b || c === 0x5b) v.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--v.depth === 0) done = true;
      }
    }
    v.parts.push(chunk.subarray(from, i));
    if (!done) return i; // continued in the next chunk
    const bytes = Buffer.concat(v.parts);
    this.value = null;
    if (this.state === "value") {
      this.on.member(this.key, bytes, v.offset);
      this.state = "after-value";
    } else {
      this.on.element(this.key, bytes, v.offset);
      this.state = "after-element";
    }
    return i;
  }
}
