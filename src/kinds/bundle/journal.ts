// The journal envelope, chain (§3) and session header, shared by both bundle profiles (native/, world/).

import { z } from "zod";
import { finding, type Finding } from "../../core/codes.js";
import { fastHeader } from "./fast.js";
import { decodeLine } from "../../core/json/decode.js";
import type { RawLine } from "../../core/json/lines.js";
import { check, envelope, finiteNumber, id, int, record, text } from "../../core/schema.js";
import { clip, isDigest, isInteger, META_KEY_RE, SEED_RE, ZERO_DIGEST } from "../../core/text.js";

/** A decoded record whose envelope is well typed. */
export interface JournalRecord {
  seq: number;
  at: number;
  type: string;
  prev: string;
  [key: string]: unknown;
}

const meta = record(
  z.string().regex(META_KEY_RE, "meta key must match [a-z][a-z0-9_.-]{0,63}"),
  z.union([text(1024), finiteNumber, z.boolean()]),
)
  .refine((m) => Object.keys(m).length <= 64, "meta holds more than 64 keys")
  .refine((m) => m["task"] === undefined || typeof m["task"] === "string", "meta.task must be a string");

export const headerSchema = z.strictObject({
  ...envelope("session"),
  format: z.string(),
  profile: z.string(),
  session: id,
  experiment: id,
  trial: id,
  attempt: int(1),
  seed: z.string(),
  harness: z.strictObject({ name: id, revision: text(64) }),
  deadline: int(),
  meta,
});
export type Header = z.output<typeof headerSchema>;

export interface HeaderResult {
  /** The header when every header rule holds, else null. */
  header: Header | null;
  /** The profile to validate the rest with: null when the format or profile is unusable. */
  profile: BundleProfile | null;
  /**
   * The deadline the profile's rules use: the header's whenever the deadline itself is sound (an
   * integer literal after the header's `at`), whatever else is wrong with the header (a bad seed
   * must not hide keys admitted late). Null when it is not (DEADLINE_INVALID, SCHEMA).
   */
  deadline: number | null;
}

/** The profiles of assay's own bundles. */
export type BundleProfile = "native-game" | "world";
const isBundleProfile = (p: unknown): p is BundleProfile => p === "native-game" || p === "world";
/** `assay.bundle/N` for another N: a format this version cannot read (FORMAT_UNSUPPORTED). */
const otherFormat = (format: unknown): format is string =>
  typeof format === "string" && /^assay\.bundle\/[0-9]+$/.test(format) && format !== "assay.bundle/1";
/** The profile to validate the rest with: a supported one, under a format this version reads. */
const usableProfile = (format: unknown, profile: unknown): BundleProfile | null =>
  !otherFormat(format) && isBundleProfile(profile) ? profile : null;

/**
 * Judge line 1. `rec` is null when it is no sound record (it failed strict decoding or its
 * envelope); its finding is already reported. `line1` is then its lenient reading (the one
 * attribution uses): when that is a session header naming a supported profile, the rest of the
 * journal is still validated with that profile, so every later failing line is reported (§3).
 * Nothing else is taken from it — no header, no deadline — and the bundle stays invalid.
 */
export function readHeader(
  rec: JournalRecord | null,
  file: string,
  out: Finding[],
  line1: Record<string, unknown> | null = null,
): HeaderResult {
  if (rec === null) {
    const profile = line1?.["type"] === "session" ? usableProfile(line1["format"], line1["profile"]) : null;
    return { header: null, profile, deadline: null };
  }
  if (rec.type !== "session") {
    out.push(finding("HEADER_MISSING", file, 1, `line 1 is a ${clip(rec.type)} record, not a session header`));
    return { header: null, profile: null, deadline: null };
  }
  const before = out.length;
  const { format, profile, seed, deadline, at } = rec;
  if (otherFormat(format)) {
    out.push(finding("FORMAT_UNSUPPORTED", file, 1, `format ${clip(format)}; this version reads assay.bundle/1`));
  } else if (format !== "assay.bundle/1" && format !== undefined) {
    out.push(finding("SCHEMA", file, 1, `format: expected "assay.bundle/1"`));
  }
  if (typeof profile === "string" && !isBundleProfile(profile))
    out.push(finding("PROFILE_UNSUPPORTED", file, 1, `profile ${clip(profile)} is not scored by this version`));
  if (typeof seed === "string" && !SEED_RE.test(seed))
    out.push(
      finding(
        "SEED_NOT_CANONICAL",
        file,
        1,
        `seed ${clip(seed, 140)} is not 16..128 lowercase hex digits of even length`,
      ),
    );
  if (isInteger(deadline) && deadline <= at)
    out.push(finding("DEADLINE_INVALID", file, 1, `deadline ${deadline} is not after the header's at ${at}`));
  const header = fastHeader(rec) ?? check(headerSchema, rec, file, 1, out);
  return {
    header: out.length === before ? header : null,
    profile: usableProfile(format, profile),
    deadline: isInteger(deadline) && deadline > at ? deadline : null,
  };
}

/** Codes of §2–3: when a journal has one, its summary and snapshot are not compared. */
export const STRUCTURAL = new Set([
  "ENCODING",
  "LINE_TOO_LONG",
  "JSON_SYNTAX",
  "JSON_DUPLICATE_KEY",
  "NOT_FINITE",
  "SCHEMA",
  "JOURNAL_CHAIN",
  "HEADER_MISSING",
  "FORMAT_UNSUPPORTED",
  "PROFILE_UNSUPPORTED",
  "SEED_NOT_CANONICAL",
  "DEADLINE_INVALID",
]);

/**
 * Reads a journal's lines in order: encoding, JSON, envelope, `seq`/`prev` chain and `at` order.
 * Returns each complete line's record (null when it failed) for the profile to judge.
 */
/**
 * What the profiles' journals share after the header: the end record once seen, and the rule that
 * nothing follows it (§4.1, §5.1). A profile rule (TRANSITION), not a §2/§3 one, so it lives here
 * and not in JournalReader, whose findings stop the summary comparison.
 */
export abstract class ProfileJournal<Status extends string> {
  end: { at: number; status: Status; line: number } | null = null;
  /**
   * Set when a line could not be read (it did not decode or its envelope failed;
   * JournalReader reported it), or held a record that failed its schema: what it held or defined
   * is unknown, so rules that depend on earlier records do not report what that line may explain.
   * The bundle is invalid anyway; one bad line should yield its own finding, not a trail of guesses.
   */
  lost = false;

  constructor(
    protected readonly file: string,
    protected readonly out: Finding[],
  ) {}

  protected transition(line: number, message: string): void {
    this.out.push(finding("TRANSITION", this.file, line, message));
  }

  /** A complete line after the header that could not be read (see `lost`). */
  unreadable(_line: number): void {
    this.markLost();
  }

  /** A line whose record is unknown or malformed (see `lost`). */
  protected markLost(): void {
    this.lost = true;
  }

  /** A record after the header: false for a second header (JournalReader reports it, §3); a record after the end is reported here. */
  protected admit(rec: JournalRecord, line: number): boolean {
    if (rec.type === "session") return false;
    if (this.end !== null)
      this.transition(line, `${clip(rec.type)} record after the end record (line ${this.end.line})`);
    return true;
  }
}

export class JournalReader {
  records = 0;
  head: string | null = null;
  torn = false;
  /** Set when a §2/§3 rule failed (summary and snapshot are then not compared). */
  structural = false;
  /** The last line's object, even when its envelope failed (attribution reads line 1 so, §6). */
  decoded: Record<string, unknown> | null = null;
  private prev = ZERO_DIGEST;
  private ended = false;
  private lastAt: number | null = null;

  constructor(
    readonly file: string,
    private readonly out: Finding[],
    private readonly warnings: Finding[],
  ) {}

  /** Judge one line; returns the record when its envelope is sound, else null. */
  line(raw: RawLine): JournalRecord | null {
    if (!raw.terminated) {
      this.torn = true;
      this.decoded = null;
      this.warnings.push(
        finding("JOURNAL_TORN", this.file, raw.number, "last line has no \\n: judged on the complete lines"),
      );
      if (this.ended) {
        this.out.push(finding("TRANSITION", this.file, raw.number, "torn tail after the end record"));
        this.structural = true;
      }
      return null;
    }
    const index = this.records++;
    const expectedPrev = this.prev;
    this.prev = this.head = raw.digest;
    const before = this.out.length;
    const rec = (this.decoded = decodeLine(raw, this.file, this.out));
    const sound = rec !== null && this.envelope(rec, raw.number, index, expectedPrev);
    if (sound && index > 0 && rec["type"] === "session")
      this.out.push(finding("TRANSITION", this.file, raw.number, "a second session header"));
    if (sound && rec["type"] === "end") this.ended = true;
    if (this.out.length > before) this.structural = true;
    return sound ? (rec as JournalRecord) : null;
  }

  private envelope(rec: Record<string, unknown>, n: number, index: number, expectedPrev: string): boolean {
    const { seq, at, type, prev } = rec;
    const bad: string[] = [];
    if (!isInteger(seq)) bad.push("seq: expected an integer literal");
    if (!isInteger(at)) bad.push("at: expected an integer literal");
    if (typeof type !== "string") bad.push("type: expected a string");
    // The expected prev is a digest, so equality settles the common case without a scan.
    const chained = prev === expectedPrev;
    if (!chained && !isDigest(prev)) bad.push("prev: expected a digest");
    if (bad.length > 0) this.out.push(finding("SCHEMA", this.file, n, bad.join("; ")));
    if (isInteger(seq) && seq !== index)
      this.out.push(finding("JOURNAL_CHAIN", this.file, n, `seq ${seq} on line ${n}; expected ${index}`));
    if (!chained && isDigest(prev))
      this.out.push(
        finding(
          "JOURNAL_CHAIN",
          this.file,
          n,
          `prev ${prev.slice(0, 12)}… is not the digest of line ${n - 1} (${expectedPrev.slice(0, 12)}…)`,
        ),
      );
    if (isInteger(at)) {
      if (this.lastAt !== null && at < this.lastAt)
        this.out.push(
          finding("TRANSITION", this.file, n, `at ${at} is earlier than the previous record's ${this.lastAt}`),
        );
      else this.lastAt = at;
    }
    return bad.length === 0;
  }
}
