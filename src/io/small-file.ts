// Small files a container's book reads whole in the main process (a Harbor job's result.json and
// lock.json, a Terminal-Bench run's results.json): bounded, and never a reason to stop the run.
import { lstatSync, readFileSync, type Stats } from "node:fs";

/** A file's lstat, undefined when absent, or why it cannot be had (a folder that cannot be searched: a tool error for what lies there, never the run's end). */
export function statOf(file: string): Stats | undefined | string {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch (e) {
    return (e as Error).message;
  }
}

/** A regular file's bytes, null when absent, or why it cannot be read (not a regular file, over `max` bytes, an I/O error). */
export function readSmallFile(file: string, max: number): Uint8Array | null | { unreadable: string } {
  const st = statOf(file);
  if (typeof st === "string") return { unreadable: st };
  if (st === undefined) return null;
  if (!st.isFile()) return { unreadable: `${file.slice(file.lastIndexOf("/") + 1)} is not a regular file` };
  if (st.size > max) return { unreadable: `${st.size} bytes, more than assay reads (${max})` };
  try {
    return readFileSync(file);
  } catch (e) {
    return { unreadable: (e as Error).message };
  }
}
