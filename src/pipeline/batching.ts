// How many bundles go into one pool task. Small bundles travel many to a task (a message each way,
// paid once for many); big ones few, so they spread over the workers. A bundle's size is known
// before it is handed out when the main thread listed it (a store needs its stamps); otherwise
// its worker lists it and says its size with its entry, and the sizes seen so far stand in.

/** Bytes per pool task (at most, unless one bundle is larger). */
export const BATCH_BYTES = 4 * 1024 * 1024;

/** A pool task is handed out once it holds `batchSize` bundles or BATCH_BYTES. */
export const batchFull = (bundles: number, bytes: number, batchSize: number): boolean =>
  bundles >= batchSize || bytes >= BATCH_BYTES;

export class TaskSizer {
  private tasks = 0;
  private seenBundles = 0;
  private seenBytes = 0;

  /** `batchSize`: bundles per task at most (a positive integer). */
  constructor(private readonly batchSize: number) {
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new RangeError(`batchSize must be a positive integer, not ${batchSize}`);
  }

  /**
   * Bundles per task while sizes are unknown: BATCH_BYTES over the mean size scored so far; before
   * any is scored, 1, 2, 4, … per task (the first tasks are small, so no worker takes a long run
   * of large bundles before a size is known).
   */
  get limit(): number {
    if (this.seenBundles === 0) return Math.min(this.batchSize, 2 ** Math.min(this.tasks, 30));
    const mean = this.seenBytes / this.seenBundles;
    return Math.max(1, Math.min(this.batchSize, Math.floor(BATCH_BYTES / Math.max(mean, 1))));
  }

  /** A task was handed out. */
  handedOut(): void {
    this.tasks++;
  }

  /** A bundle whose size was not known when it was handed out came back this large. */
  scored(bytes: number): void {
    this.seenBundles++;
    this.seenBytes += bytes;
  }
}
