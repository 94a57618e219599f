// Whether a member's JSON can be parsed within the heap this thread has left, asked before
// JSON.parse runs. JSON.parse is one native call that never looks at a termination request: a
// worker past its bundle's time limit or its heap limit (resourceLimits) goes on building the value,
// the process cannot exit until it returns, and past its heap limit V8 aborts the whole process
// (nodejs/node#47224). A member of 100 MB of `{"a":[1]},` took a worker to its 512 MB and the run's
// exit ~4 minutes past its 3 s limit. Such a member is refused (FILE_TOO_LARGE), never parsed.

import { getHeapStatistics } from "node:v8";
import { MemberError } from "./zip.js";

/**
 * Heap bytes a byte of JSON text can take at most once parsed (`[{},{},…]`: an object of up to 56
 * bytes and its slot for 3 bytes of text). A text smaller than the heap left over this is parsed
 * without looking; a larger one is counted first (a pass over its bytes outside its strings).
 */
const WORST_RATIO = 32;
/** Heap per value, counted generously: a container (an object or array with its backing store), a slot in one, a string. */
const CONTAINER_BYTES = 64;
const SLOT_BYTES = 16;
const STRING_BYTES = 32;

/**
 * Heap the parse of `text` (UTF-8 bytes) may take, at most: the text as a string (twice: two bytes
 * a character at worst) and its values. A string's content is skipped by indexOf (native), so a
 * member that is mostly text costs little to count; past `stopAbove` it stops counting.
 */
export function parseCost(text: Uint8Array, stopAbove = Infinity): number {
  let cost = 2 * text.length;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === 0x22) {
      cost += STRING_BYTES;
      // Its end: the next quote with an even run of backslashes before it.
      let j = i + 1;
      for (;;) {
        j = text.indexOf(0x22, j);
        if (j === -1) return cost; // never closed: the parse fails, whatever it would hold
        let k = j - 1;
        while (text[k] === 0x5c) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j++;
      }
      i = j + 1;
    } else {
      if (c === 0x7b || c === 0x5b) cost += CONTAINER_BYTES + SLOT_BYTES;
      else if (c === 0x2c || c === 0x3a) cost += SLOT_BYTES;
      i++;
    }
    if (cost > stopAbove) return cost;
  }
  return cost;
}

/** The heap this thread may still use. */
const heapLeft = (): number => {
  const h = getHeapStatistics();
  return h.heap_size_limit - h.used_heap_size;
};

/** A text this small is parsed without asking (at most 32 MiB of heap): the heap is looked at only for larger ones. */
const SMALL_BYTES = 1024 * 1024;

/** Throws FILE_TOO_LARGE (the tool's limit) when parsing `text`, named `where`, may need more heap than this thread has left (`left`: the heap's word). */
export function checkParseRoom(text: Uint8Array, where: string, left?: number): void {
  if (left === undefined) {
    if (text.length <= SMALL_BYTES) return;
    left = heapLeft();
  }
  if (text.length * WORST_RATIO <= left) return;
  const cost = parseCost(text, left);
  if (cost > left)
    throw new MemberError(
      "FILE_TOO_LARGE",
      `${where}: its ${text.length} bytes of JSON may need more heap once parsed than the ${Math.floor(left / 2 ** 20)} MiB this reader has left: not parsed`,
    );
}
