// The spill files a process holds open in a folder (Linux: /proc/PID/fd), named or not: a spill's
// name is removed as soon as it is open, so only its descriptors show that it exists.
import { readdirSync, readlinkSync } from "node:fs";

export function openSpills(dir: string, pid: number | "self" = "self"): string[] {
  const held: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith(`${dir}/.assay-spill.`)) held.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return held;
}
