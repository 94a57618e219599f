// A compact record's own numbers, in columns: each record a row of a few 32-bit integers in chunks
// of typed arrays (off the JavaScript heap: no object, no header, nothing for the collector to
// trace), where an object of fields took 96 bytes. A number no 32-bit integer holds (an attempt past
// 2^31) waits in a side table, found by its row and column; times have columns of 64-bit floats
// (Times), exact for every Date, since most of a corpus's times are past what 32 bits of ms hold. Pure.

/** Rows a chunk holds: a chunk is allocated whole, so a run's last one is at most this much too large. */
const ROWS = 8192;
/** Values no field keeps itself: null, and "in the side table". */
export const NONE = -0x80000000;
const ASIDE = -0x7fffffff;

/** Rows of `width` numbers in chunks of a typed array, each allocated whole with every field `fill`. */
class Chunked<A extends Int32Array | Float64Array> {
  private readonly chunks: A[] = [];
  /** Rows added. */
  length = 0;

  constructor(
    protected readonly width: number,
    private readonly make: (n: number) => A,
  ) {}

  /** A new row (its fields the chunk's fill: set them). */
  add(): number {
    if (this.length % ROWS === 0) this.chunks.push(this.make(ROWS * this.width));
    return this.length++;
  }

  get(row: number, column: number): number {
    return this.chunks[Math.floor(row / ROWS)]![(row % ROWS) * this.width + column]!;
  }

  set(row: number, column: number, v: number): void {
    this.chunks[Math.floor(row / ROWS)]![(row % ROWS) * this.width + column] = v;
  }
}

/** 32-bit integer columns (fields 0 until set), with numbers no field holds in a side table. */
export class Columns extends Chunked<Int32Array> {
  private readonly aside = new Map<number, number>();

  constructor(width: number) {
    super(width, (n) => new Int32Array(n));
  }

  /** A number or null, kept whole: in its field when a 32-bit integer holds it (and it is not -0), else aside. */
  setNumber(row: number, column: number, v: number | null): void {
    if (v === null) return this.set(row, column, NONE);
    const small = (v | 0) === v && !Object.is(v, -0) && v > ASIDE;
    if (!small) this.aside.set(row * this.width + column, v);
    this.set(row, column, small ? v : ASIDE);
  }

  getNumber(row: number, column: number): number | null {
    const v = this.get(row, column);
    return v === NONE ? null : v === ASIDE ? this.aside.get(row * this.width + column)! : v;
  }
}

/**
 * Numbers in 64-bit float columns (every field NaN until set): a record's times (ms, NaN for none),
 * exact for every time a Date holds, with no side table however far apart the times are (int32
 * offsets from a run's first time reach only ±24.8 days). Rows are numbered as Columns numbers
 * them when both add together.
 */
export class Times extends Chunked<Float64Array> {
  constructor(width: number) {
    super(width, (n) => new Float64Array(n).fill(NaN));
  }
}
