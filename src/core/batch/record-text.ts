// The text a compact record keeps of each bundle, in less memory than a string each (a heap
// snapshot at 80,000 bundles: the path 64 bytes, the seed 48, the trial 24): a path cut where its
// folder is shared and its rest as UTF-8 bytes, a trial named by where it lies in the path, a hex
// seed as its bytes. Each is given back as the same text. Pure.

/** The path's folder two levels up, with its "/" (shared by many bundles), and the rest: folder + rest is the path (slices of it: own() keeps one). */
export function cutPath(path: string): [folder: string, rest: string] {
  const last = path.lastIndexOf("/");
  const cut = last <= 0 ? 0 : path.lastIndexOf("/", last - 1) + 1;
  return [path.slice(0, cut), path.slice(cut)];
}

/**
 * A string of its own: a slice of 13 characters or more is a view that keeps the whole string it
 * was cut from alive (V8's sliced strings); this copies it (JSON: lone surrogates too, unchanged).
 */
export const own = (s: string): string => (s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string));

/** The path's last name (1) or the one before (2): where a bundle's trial is usually named. */
export function segment(path: string, at: 1 | 2): string {
  const end = at === 1 ? path.length : path.lastIndexOf("/");
  return end < 0 ? "" : path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/** A trial as kept: 1 or 2 when it is that segment of the path (no string of its own), else itself. */
export const trialAt = (trial: string | null, path: string): string | null | 1 | 2 =>
  trial === null || trial === "" ? trial : trial === segment(path, 2) ? 2 : trial === segment(path, 1) ? 1 : trial;

/** Lowercase hex of an even length up to 2 × 255: what a seed is (core/text.ts SEED_RE), kept as its bytes. */
const HEX = /^(?:[0-9a-f]{2}){1,255}$/;
const CHUNK = 64 * 1024;

/** Hex seeds as bytes in chunks, each a length byte then the bytes; a seed is known by its offset. */
export class HexArena {
  private readonly chunks: Buffer[] = [];
  private used = CHUNK;

  /** Its offset, or the seed itself when it is not lowercase hex (or null). */
  put(seed: string | null): string | number | null {
    if (seed === null || !HEX.test(seed)) return seed;
    const n = seed.length / 2;
    if (this.used + 1 + n > CHUNK) {
      this.chunks.push(Buffer.allocUnsafeSlow(CHUNK));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const at = (this.chunks.length - 1) * CHUNK + this.used;
    chunk[this.used] = n;
    chunk.write(seed, this.used + 1, n, "hex");
    this.used += 1 + n;
    return at;
  }

  get(kept: string | number | null): string | null {
    if (typeof kept !== "number") return kept;
    const chunk = this.chunks[Math.floor(kept / CHUNK)]!;
    const at = kept % CHUNK;
    return chunk.toString("hex", at + 1, at + 1 + chunk[at]!);
  }
}

/** Longest text a TextArena keeps (in UTF-16 units): its bytes fit a chunk, and a length of two bytes says how many. */
const MAX_TEXT = 4096;

/**
 * Text as its UTF-8 bytes in chunks, each a two-byte length then the bytes; a text is known by
 * its offset. A path's rest there takes its length in bytes and 6, where a string took a header of
 * 16 and its characters rounded up to 8 (and a slot to point at it).
 */
export class TextArena {
  private readonly chunks: Buffer[] = [];
  private used = CHUNK;

  /** Its offset; -1 when it is not kept here (longer than MAX_TEXT, or a lone surrogate, which UTF-8 cannot carry). */
  put(s: string): number {
    if (s.length > MAX_TEXT || !s.isWellFormed()) return -1;
    if (this.used + 2 + 3 * s.length > CHUNK) {
      this.chunks.push(Buffer.allocUnsafeSlow(CHUNK));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const at = (this.chunks.length - 1) * CHUNK + this.used;
    const n = chunk.write(s, this.used + 2, "utf8");
    chunk.writeUInt16LE(n, this.used);
    this.used += 2 + n;
    return at;
  }

  get(at: number): string {
    const chunk = this.chunks[Math.floor(at / CHUNK)]!;
    const from = (at % CHUNK) + 2;
    return chunk.toString("utf8", from, from + chunk.readUInt16LE(from - 2));
  }
}
