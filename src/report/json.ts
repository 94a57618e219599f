// The canonical output: the §10 document, byte-identical for identical inputs and options apart
// from `run`. Written as pieces, an entry at a time (a million entries are never one string), and
// byte for byte what JSON.stringify(document, null, 2) gives (a test holds the two together).
import type { ResultsView } from "../core/results.js";

/** `value` as JSON.stringify(…, null, 2) writes it `depth` levels down: each line after the first indented two spaces a level. */
export const nested = (value: unknown, depth: number): string => JSON.stringify(value, null, 2).replace(/\n/g, `\n${"  ".repeat(depth)}`);

/** An array's items two levels down (a member of the top-level object), as JSON.stringify lays them out. */
export function* array(items: Iterable<unknown>): Generator<string> {
  let first = true;
  for (const item of items) {
    yield `${first ? "[\n" : ",\n"}    ${nested(item, 2)}`;
    first = false;
  }
  yield first ? "[]" : "\n  ]";
}

export function* render(doc: ResultsView): Generator<string> {
  yield `{\n  "format": ${JSON.stringify(doc.format)},\n  "run": ${nested(doc.run, 1)},\n  "bundles": `;
  yield* array(doc.bundles);
  yield `,\n  "experiments": `;
  yield* array(doc.experiments);
  yield "\n}\n";
}
