// The canonical output: the §10 document, byte-identical for identical inputs and options apart
// from `run`. Written as pieces — an entry at a time, and an experiment's long lists an item at a
// time — so neither a million entries nor an experiment of a million trials is ever one string;
// byte for byte what JSON.stringify(document, null, 2) gives (a test holds the two together).
import { DocumentMac, type ResultsView } from "../core/results.js";

/**
 * `value` as JSON.stringify(…, null, 2) writes it `depth` levels down: each line after the first
 * indented two spaces a level. Written inside `depth` arrays, which JSON.stringify indents so, and
 * cut out of them: no second pass over the text (a fifth faster than re-indenting each line).
 */
export function nested(value: unknown, depth: number): string {
  // What JSON.stringify would leave out (or write as null inside the arrays): never in a document.
  if (value === undefined || typeof value === "function" || typeof value === "symbol")
    throw new TypeError(`not a JSON value: ${typeof value}`);
  if (typeof value !== "object" || value === null) return JSON.stringify(value); // one line at any depth
  let wrapped = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const s = JSON.stringify(wrapped, null, 2);
  // Level i opens with "[", "\n" and 2(i + 1) spaces, and closes with "\n", 2i spaces and "]".
  return s.slice(2 * depth + depth * (depth + 1), s.length - (2 * depth + depth * (depth - 1)));
}

/** Arrays longer than this are written an item at a time. */
const LONG = 64;

/** `value` at `depth`, as nested() writes it, in pieces: long arrays item by item, the objects that hold them key by key. */
export function* pieces(value: unknown, depth: number): Generator<string> {
  if (Array.isArray(value)) {
    if (value.length <= LONG && !holdsLong(value)) return yield nested(value, depth);
    yield* array(value, depth);
  } else if (typeof value === "object" && value !== null && holdsLong(value)) {
    const pad = "  ".repeat(depth + 1);
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue; // as JSON.stringify leaves it out
      yield `${first ? "{" : ","}\n${pad}${JSON.stringify(k)}: `;
      yield* pieces(v, depth + 1);
      first = false;
    }
    yield first ? "{}" : `\n${"  ".repeat(depth)}}`;
  } else yield nested(value, depth);
}

/** Does an object (or an array) hold a long array anywhere (only then is it worth writing piece by piece)? */
function holdsLong(o: object): boolean {
  // Indexes and for…in, not Object.values: this runs on every entry of a million-entry document.
  const long = (v: unknown) =>
    typeof v === "object" && v !== null && (Array.isArray(v) ? v.length > LONG || holdsLong(v) : holdsLong(v));
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) if (long(o[i])) return true;
  } else for (const k in o) if (long((o as Record<string, unknown>)[k])) return true;
  return false;
}

/** An array's items at `depth + 1`, as JSON.stringify lays them out; each item's bytes also go to `mac`, when given. */
export function* array(
  items: Iterable<unknown>,
  depth = 1,
  mac?: { sink: DocumentMac; kind: "bundles" | "experiments" },
): Generator<string> {
  const pad = "  ".repeat(depth + 1);
  let first = true;
  for (const item of items) {
    yield `${first ? "[" : ","}\n${pad}`;
    if (mac === undefined) yield* pieces(item, depth + 1);
    else {
      mac.sink.begin();
      for (const p of pieces(item, depth + 1)) {
        mac.sink.piece(p);
        yield p;
      }
      mac.sink.end(mac.kind);
    }
    first = false;
  }
  yield first ? "[]" : `\n${"  ".repeat(depth)}]`;
}

/** How a document is written: with a key, it ends with its MAC (core/results.ts DocumentMac). The key is never written. */
export interface RenderOptions {
  macKey?: Uint8Array | undefined;
  /** table: each experiment's section after the overview (score --details); other formats ignore it. */
  details?: boolean | undefined;
  /** table: the columns to fit every line in (a terminal's width); absent, lines are as long as they come. */
  width?: number | undefined;
}

export function* render(doc: ResultsView, o: RenderOptions = {}): Generator<string> {
  const sink = o.macKey === undefined ? undefined : new DocumentMac(o.macKey);
  sink?.setRun(doc.run);
  yield `{\n  "format": ${JSON.stringify(doc.format)},\n  "run": ${nested(doc.run, 1)},\n  "bundles": `;
  yield* array(doc.bundles, 1, sink && { sink, kind: "bundles" });
  yield `,\n  "experiments": `;
  yield* array(doc.experiments, 1, sink && { sink, kind: "experiments" });
  if (sink !== undefined) yield `,\n  "mac": ${nested({ alg: "HMAC-SHA256", value: sink.digest() }, 1)}`;
  yield "\n}\n";
}
