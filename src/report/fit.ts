// Text laid out in the width a terminal gives (issue 40): lines wrapped, never cut, and tables
// whose wide cells wrap inside their column; where even that does not fit, each row's name on a
// line of its own above the rest of its cells, still a table under a shared header; and where that
// does not fit either, each row stacked as its name and then its cells. Nothing here drops a character: a name is what tells two rows
// apart, so it is wrapped, never shortened. Widths count code points (what the tables print is
// ASCII apart from names, escaped by forTerminal before they get here).

/** Printed width of a string (code points). */
export const widthOf = (s: string): number => [...s].length;

/** Where a word too long for its line is best broken: after one of these (a path's /, a name's _ or -). */
const SOFT = /[/_\-.@:,)]/;

/** How much of `chars` from `from` goes on a line of `room`: up to the last soft break in its second two thirds, else `room` exactly. */
function cutAt(chars: readonly string[], from: number, room: number): number {
  for (let i = room; i > Math.floor(room / 3); i--) if (SOFT.test(chars[from + i - 1]!)) return i;
  return room;
}

/**
 * `text` as lines of at most `width` code points: broken at spaces, a word longer than a line
 * broken after a /, _ or - where it has one (else inside it), every character kept; lines after
 * the first start with `indent` (dropped where it would leave less than 20 columns). Runs of
 * spaces inside a line (aligned labels) are kept; the spaces at a break are not.
 */
export function wrap(text: string, width: number, indent = ""): string[] {
  if (widthOf(text) <= width) return [text];
  const lead = widthOf(indent) > width - 20 ? "" : indent;
  // Widths kept as counts and a long word cut by index, never measured or split again: time linear in the text (issue 40, review 11).
  const leadWidth = widthOf(lead);
  const out: string[] = [];
  let line = "";
  let lineWidth = 0;
  let words = 0;
  for (const [, spaces, word] of text.matchAll(/( *)(\S+)/g)) {
    let sp = spaces!;
    const chars = [...word!];
    let from = 0; // chars[from..] is what of the word is still to place
    for (;;) {
      const rest = chars.length - from;
      if (lineWidth + sp.length + rest <= width) {
        line += sp + (from === 0 ? word! : chars.slice(from).join(""));
        lineWidth += sp.length + rest;
        words++;
        break;
      }
      if (words > 0) {
        out.push(line.trimEnd());
        [line, lineWidth, sp, words] = [lead, leadWidth, "", 0];
        continue;
      }
      // Alone on its line and still too long: as much as fits, the rest on the next.
      const room = Math.max(1, width - lineWidth - sp.length);
      const cut = cutAt(chars, from, room);
      out.push((line + sp + chars.slice(from, from + cut).join("")).trimEnd());
      [line, lineWidth, sp] = [lead, leadWidth, ""];
      from += cut;
    }
  }
  if (words > 0 || out.length === 0) out.push(line.trimEnd());
  return out;
}

/**
 * Lines as `wrap` lays them out, each continued under its value where it reads "label   value"
 * (two spaces or more after a label that starts the line), else two columns in from its own start.
 */
export function wrapLines(lines: Iterable<string>, width: number): string[] {
  if (width === Infinity) return [...lines];
  const out: string[] = [];
  for (const l of lines) {
    if (widthOf(l) <= width) {
      out.push(l);
      continue;
    }
    const lead = /^ */.exec(l)![0];
    const label = /^ *\S+(?: \S+)? {2,}(?=\S)/.exec(l)?.[0];
    const indent = label !== undefined && widthOf(label) <= width / 2 ? " ".repeat(widthOf(label)) : `${lead}  `;
    out.push(...wrap(l, width, indent));
  }
  return out;
}

export interface Column {
  head: string;
  /** Counts: right-aligned. */
  right?: boolean;
  /** Words that may wrap inside the column (names, metrics, notes); the others keep their width. */
  wrap?: boolean;
  /** How much a line more in this column costs against one in another (default 1): a name is wrapped last. */
  weight?: number;
  /** Part of what tells rows apart: in the middle layout (nameAbove) said on the row's own line, above its other cells. */
  above?: boolean;
}

/** The narrowest a wrapping column is made before the table gives way to stacked rows. */
const MIN_WRAP = 12;

/**
 * The widths of a table in at most `width` columns: each column's natural width where the whole
 * fits; else its wrapping columns narrowed (each keeps at least its longest heading word or
 * MIN_WRAP), a row then taking several lines; null where even that does not fit.
 */
function widthsFor(cols: readonly Column[], all: readonly string[][], width: number, indent: string): number[] | null {
  const natural = cols.map((_, i) => Math.max(...all.map((r) => widthOf(r[i]!))));
  const gaps = 2 * (cols.length - 1) + widthOf(indent);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (sum(natural) + gaps <= width) return natural;
  const least = cols.map((c, i) =>
    c.wrap
      ? Math.min(natural[i]!, Math.max(MIN_WRAP, ...c.head.split(/[ /]/).map((w) => widthOf(w) + 1)))
      : natural[i]!,
  );
  if (sum(least) + gaps > width) return null;
  // No column starts wider than what the others' narrowest leave it, and each column's line count
  // at a width is counted once: the steps are bounded by the width, not by the longest cell, and
  // each wraps one column (issue 40, review 11: a long name had made this superlinear).
  const room = width - gaps - sum(least);
  const widths = natural.map((n, i) => Math.min(n, least[i]! + room));
  const counted = cols.map(() => new Map<number, number>());
  const lines = (i: number, w: number) => {
    let n = counted[i]!.get(w);
    if (n === undefined) counted[i]!.set(w, (n = sum(all.map((r) => wrap(r[i]!, w).length))));
    return n;
  };
  // Narrowed a column at a time, each step the one that adds the fewest lines (weighed: a name is wrapped last) to the table.
  for (let over = sum(widths) + gaps - width; over > 0; over--) {
    let best = -1;
    let bestCost = Infinity;
    for (let i = 0; i < cols.length; i++) {
      if (widths[i]! <= least[i]!) continue;
      const cost = (lines(i, widths[i]! - 1) - lines(i, widths[i]!)) * (cols[i]!.weight ?? 1);
      if (cost < bestCost || (cost === bestCost && widths[i]! > widths[best]!)) [best, bestCost] = [i, cost];
    }
    widths[best]!--;
  }
  return widths;
}

/** One row of a table in the given widths: its wrapping cells wrapped inside them. Cells are separated by two spaces; the last column is unpadded, so no line ends in spaces. */
function rowLines(cols: readonly Column[], widths: readonly number[], r: readonly string[], indent: string): string[] {
  const cells = r.map((c, i) => (cols[i]!.wrap ? wrap(c, widths[i]!) : [c]));
  const height = Math.max(...cells.map((c) => c.length));
  const out: string[] = [];
  for (let k = 0; k < height; k++)
    out.push(
      (
        indent +
        cells
          .map((c, i) => {
            const x = c[k] ?? "";
            if (i === cells.length - 1 && cols[i]!.right !== true) return x;
            const pad = " ".repeat(Math.max(0, widths[i]! - widthOf(x)));
            return cols[i]!.right ? pad + x : x + pad;
          })
          .join("  ")
      ).trimEnd(),
    );
  return out;
}

/**
 * A table in at most `width` columns: as it is where it fits; else its wrapping columns narrowed
 * and their cells wrapped inside them (widthsFor); null where even that does not fit.
 */
export function fitTable(
  cols: readonly Column[],
  rows: readonly string[][],
  width: number,
  indent = "",
): string[] | null {
  const all = [cols.map((c) => c.head), ...rows];
  const widths = widthsFor(cols, all, width, indent);
  return widths === null ? null : all.flatMap((r) => rowLines(cols, widths, r, indent));
}

/**
 * The middle layout, for a table too wide even wrapped: each row's `above` cells (what tells it
 * apart) on a line of their own, joined by " · " and wrapped, never cut; under it, two columns in,
 * its other cells as a table fitted (fitTable's way) in the width left, their headings once on
 * top under the above cells' headings. Null where the columns have no above cells, or nothing
 * else, or the rest does not fit either.
 */
export function nameAbove(
  cols: readonly Column[],
  rows: readonly string[][],
  width: number,
  indent = "",
): string[] | null {
  const above = cols.flatMap((c, i) => (c.above === true ? [i] : []));
  const below = cols.flatMap((c, i) => (c.above === true ? [] : [i]));
  if (above.length === 0 || below.length === 0) return null;
  const inner = `${indent}  `;
  // A name continued deeper than the table's rows: what starts at the indent is always a name.
  const named = (cells: readonly string[]) =>
    wrap(
      indent +
        above
          .map((i) => cells[i]!)
          .filter((c) => c !== "")
          .join(" · "),
      width,
      `${inner}  `,
    );
  const cells = (r: readonly string[]) => below.map((i) => r[i]!);
  const sub = below.map((i) => cols[i]!);
  const all = [cells(cols.map((c) => c.head)), ...rows.map(cells)];
  const widths = widthsFor(sub, all, width, inner);
  if (widths === null) return null;
  const out = [...named(cols.map((c) => c.head)), ...rowLines(sub, widths, all[0]!, inner)];
  rows.forEach((r, k) => out.push(...named(r), ...rowLines(sub, widths, all[k + 1]!, inner)));
  return out;
}

/**
 * Rows too wide for any table, stacked: each row's first cell on a line of its own (wrapped, never
 * cut), then its other cells as "heading value", as many to a line as fit, separated by " · ";
 * empty cells left out.
 */
export function stackRows(cols: readonly Column[], rows: readonly string[][], width: number, indent = ""): string[] {
  const out: string[] = [];
  const inner = `${indent}  `;
  for (const r of rows) {
    out.push(...wrap(`${indent}${r[0]!}`, width, inner));
    let line = "";
    for (let i = 1; i < cols.length; i++) {
      const v = r[i]!;
      if (v === "") continue;
      const field = cols[i]!.head === "" ? v : `${cols[i]!.head} ${v}`;
      if (line !== "" && widthOf(line) + 3 + widthOf(field) <= width) line += ` · ${field}`;
      else {
        if (line !== "") out.push(...wrap(line, width, `${inner}  `));
        line = `${inner}${field}`;
      }
    }
    if (line !== "") out.push(...wrap(line, width, `${inner}  `));
  }
  return out;
}

/**
 * A table fitted to `width` (fitTable); where it does not fit, or wraps into more lines than the
 * middle layout takes (nameAbove: the same rows, names whole on their own lines), the middle
 * layout; where neither fits, the rows stacked (stackRows).
 */
export function layOut(cols: readonly Column[], rows: readonly string[][], width: number, indent = ""): string[] {
  const table = fitTable(cols, rows, width, indent);
  const middle = nameAbove(cols, rows, width, indent);
  if (table !== null && (middle === null || table.length <= middle.length)) return table;
  return middle ?? stackRows(cols, rows, width, indent);
}
