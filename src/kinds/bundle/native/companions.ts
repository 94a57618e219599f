// summary.json (§4.5) and snapshot.json (§4.4) against the journal they describe.

import type { z } from "zod";
import { finding, type Finding } from "../../../core/codes.js";
import { differingFields } from "../../../core/compare.js";
import type { Header, JournalReader } from "../journal.js";
import { decodeDocument } from "../../../core/json/decode.js";
import { check } from "../../../core/schema.js";
import { summaryIdentity } from "../summary.js";
import { fastSnapshot, fastSummary } from "./fast.js";
import type { NativeJournal } from "./journal.js";
import { snapshotSchema, summarySchema } from "./records.js";

export const SUMMARY = "summary.json";
export const SNAPSHOT = "snapshot.json";

/** The summary a correct writer would have written for this journal. */
export function expectedSummary(header: Header, reader: JournalReader, nj: NativeJournal) {
  const e = nj.ending;
  const o = nj.outcome(header.deadline);
  return {
    ...summaryIdentity(header),
    journal: { records: reader.records, head: reader.head },
    status: nj.end?.status ?? null,
    ended_at: nj.end?.at ?? null,
    native_ending:
      e === null
        ? null
        : { at: e.at, frame: e.frame, escaped: e.state.escaped, is_dead: e.state.is_dead, depth: e.state.depth },
    victory: o.victory,
    snapshot: nj.finalScore?.snapshot ?? null,
    counts: { ...nj.counts },
  };
}

/** §4.5 / §5.5: every field of summary.json equals its recomputation (`schema`: the profile's). */
export function checkSummary(
  bytes: Uint8Array | null,
  expected: Record<string, unknown>,
  out: Finding[],
  schema: z.ZodType<Record<string, unknown>> = summarySchema,
): void {
  if (bytes === null) {
    out.push(finding("SUMMARY_MISSING", SUMMARY, null, "the journal has an end record but summary.json is absent"));
    return;
  }
  const value = decodeDocument(bytes, SUMMARY, out);
  if (value === undefined) return;
  const summary = (schema === summarySchema ? fastSummary(value) : null) ?? check(schema, value, SUMMARY, null, out);
  if (summary === null) return;
  for (const field of differingFields(expected, summary))
    out.push(
      finding(
        "SUMMARY_MISMATCH",
        SUMMARY,
        null,
        `field ${field} differs from the journal (${describe(expected, field)})`,
      ),
    );
}

export function checkSnapshot(
  bytes: Uint8Array | null,
  fileDigest: string | null,
  header: Header,
  nj: NativeJournal,
  out: Finding[],
): void {
  const score = nj.finalScore!;
  if (bytes === null) {
    out.push(
      finding(
        "SNAPSHOT_MISSING",
        SNAPSHOT,
        null,
        `the final score (line ${score.line}) names a snapshot but snapshot.json is absent`,
      ),
    );
    return;
  }
  const mismatch = (msg: string) => out.push(finding("SNAPSHOT_MISMATCH", SNAPSHOT, null, msg));
  if (fileDigest !== score.snapshot)
    mismatch(`file digest ${fileDigest} is not the final score's ${score.snapshot} (line ${score.line})`);
  const value = decodeDocument(bytes, SNAPSHOT, out);
  if (value === undefined) return;
  const snap = fastSnapshot(value) ?? check(snapshotSchema, value, SNAPSHOT, null, out);
  if (snap === null) return;
  const last = nj.lastObservation;
  const expected = {
    format: "assay.snapshot/1",
    session: header.session,
    frame: last?.frame ?? null,
    state: last?.state ?? null,
  };
  for (const field of differingFields(expected, snap))
    mismatch(
      `field ${field} differs from ${field === "format" || field === "session" ? "the expected value" : `the last observation (line ${last?.line})`}`,
    );
  if (last !== null && snap.at < last.at)
    mismatch(`at ${snap.at} is before the last observation's ${last.at} (line ${last.line})`);
}

function describe(expected: Record<string, unknown>, field: string): string {
  let v: unknown = expected;
  for (const k of field.split(".")) v = (v as Record<string, unknown> | null)?.[k];
  return `recomputed: ${JSON.stringify(v)}`;
}
