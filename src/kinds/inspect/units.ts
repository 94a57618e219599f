// Issue 40: an Inspect log's units (sample × epoch) for the per-unit export, read from the log a
// batch of samples at a time (never the whole list: a log may hold 100,000 samples). The entry
// keeps per-log counts and per-sample reduced values; the epochs, their states and usage are
// only in the log.

import type { Finding } from "../../core/codes.js";
import { isPlainObject } from "../../core/json/decode.js";
import { MembersError, MembersReader } from "../../core/json/members.js";
import type { BundleEntry } from "../../core/results.js";
import { readChunks } from "../../io/bundle-source.js";
import { fileDigest } from "../../io/bundle-source.js";
import { EvidenceChanged, type UnitOf } from "../kind.js";
import { stateOf } from "./log.js";
import { parseValue, partsOf, readSamples } from "./read.js";
import { sampleRecord, type SampleRecord } from "./sample.js";
import { valueToFloat } from "./value.js";
import { parseVersion } from "./version.js";
import { MAX_MEMBER_BYTES, overDecodeBudget, readDirectory } from "./zip.js";

/** Samples read per batch: a few hundred records (~1 KB each) in memory at once. */
const BATCH = 256;

/** A score value → the floats it stands for: a scalar under its scorer's name, a map's each key as `scorer/key`; NaN (unscored) and what is no number as null. */
function scoresOf(scores: Record<string, unknown>, version: readonly number[] | null): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const float = (v: unknown): number | null => {
    if (v === null || typeof v === "object") return null;
    const { x, fallback } = valueToFloat(v, version);
    return fallback || !Number.isFinite(x) ? null : x;
  };
  for (const [name, v] of Object.entries(scores)) {
    if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) out[`${name}/${k}`] = float(x);
    else out[name] = Array.isArray(v) ? null : float(v);
  }
  return out;
}

function unitOf(r: SampleRecord, version: readonly number[] | null): UnitOf {
  return {
    unit: r.id,
    epoch: r.epoch,
    state: stateOf(r, version),
    scores: scoresOf(r.scores, version),
    usage: r.usage,
    file: r.member,
    detail: r.limit === null ? r.errorMessage : `limit: ${r.limit}${r.errorMessage ? `; ${r.errorMessage}` : ""}`,
  };
}

/** The sample records of a log, in the log's order, a batch at a time (records that do not parse are passed over, as the entry's findings already say). */
function* records(file: string, format: "eval" | "json"): Generator<SampleRecord> {
  if (format === "eval") {
    const dir = readDirectory(file);
    const { units } = partsOf(dir.members);
    // The limit score keeps: past it nothing is decoded (an 81 KB log declaring 78 MB took 1.6 GB here).
    const over = overDecodeBudget(units.flat(), dir.size);
    if (over !== null) throw new Error(`FILE_TOO_LARGE: ${over}`);
    for (let i = 0; i < units.length; i += BATCH) {
      const r = readSamples(file, units.slice(i, i + BATCH).flat());
      yield* r.samples ?? [];
      // A batch cut short (a member past assay's limits, an unknown method): the rest is not read, and the entry says so.
      if (r.toolError !== undefined) throw new Error(`${r.toolError.code}: ${r.toolError.message}`);
    }
    return;
  }
  const ignored: Finding[] = [];
  const batch: SampleRecord[] = [];
  let n = 0;
  // Where the last value ended and how much was fed: one value is held whole, no larger than score allows.
  let lastEnd = 0;
  let fed = 0;
  const reader = new MembersReader(new Set(["samples"]), {
    member: (_k, bytes, offset) => {
      lastEnd = offset + bytes.length;
    },
    element: (_k, bytes, offset) => {
      lastEnd = offset + bytes.length;
      const where = `samples[${n++}]`;
      const v = parseValue(bytes, where, ignored);
      const r = isPlainObject(v) ? sampleRecord(v, where, ignored) : null;
      if (r !== null) batch.push(r);
      ignored.length = 0;
    },
  });
  try {
    for (const chunk of readChunks(file)) {
      reader.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      fed += chunk.byteLength;
      yield* batch.splice(0);
      if (fed - lastEnd > MAX_MEMBER_BYTES)
        throw new Error(`FILE_TOO_LARGE: the value after byte ${lastEnd} runs past ${MAX_MEMBER_BYTES} bytes`);
    }
  } catch (e) {
    if (!(e instanceof MembersError)) throw e; // a truncated log: its units as far as it is intact
  }
  yield* batch.splice(0);
}

/** Throws EvidenceChanged unless `file` holds the bytes the entry was scored from. */
function sameLog(entry: BundleEntry, file: string, what: string): void {
  const digest = fileDigest(file);
  if (digest !== entry.digest)
    throw new EvidenceChanged(`${what} (its SHA-256 ${digest}, the entry's ${entry.digest || "none"})`);
}

/**
 * The units of one log entry, read from `file` (the log on disk), only if it is the log the entry
 * was scored from: its digest checked before (another log copied over it, another --from) and after
 * (changed while read; the units given are then dropped by the caller).
 */
export function* inspectUnits(entry: BundleEntry, file: string): Generator<UnitOf> {
  const format = entry.inspect?.format ?? (file.endsWith(".json") ? "json" : "eval");
  const version = parseVersion(entry.inspect?.inspect_version ?? null);
  sameLog(entry, file, "the file is not the log this entry was scored from");
  for (const r of records(file, format)) yield unitOf(r, version);
  sameLog(entry, file, "the file changed while its samples were read");
}
