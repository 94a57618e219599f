// One bundle's result (contract §10 bundle entry) as a pure function of its bytes: the caller
// supplies the entry listing and a way to read chunks; nothing here touches the file system.

import { createHash } from "node:crypto";
import { finding, type Code, type Finding } from "./codes.js";
import { attributionOf, JournalReader, lenientObject, readHeader, STRUCTURAL, type Header } from "./journal.js";
import { MAX_DOCUMENT_BYTES } from "./json/decode.js";
import { splitLines } from "./json/lines.js";
import { checkSnapshot, checkSummary, expectedSummary, SNAPSHOT, SUMMARY } from "./native/companions.js";
import { NativeJournal } from "./native/journal.js";
import type { BundleEntry, Profile } from "./results.js";
import { byteCompare } from "./text.js";

export const JOURNAL = "journal.jsonl";
export const SEAL = "seal.json";
const MAX_FILE_BYTES = 4 * 1024 ** 3;
/**
 * Findings listed per bundle. Every failing line is reported up to this many; past it, one
 * finding per code says how many more there were, so memory stays flat on a wholly broken journal.
 */
export const MAX_FINDINGS = 1000;

/** "unnamed": a name that is not valid UTF-8 (it cannot be named in results). */
export type EntryKind = "file" | "dir" | "symlink" | "other" | "unnamed";
export interface BundleEntryInfo {
  /** Path relative to the bundle, '/'-separated. */
  path: string;
  kind: EntryKind;
  size: number;
  /** "mtime_ns:inode" when the lister was asked for it (the store's stamps); unused here. */
  stamp?: string;
}
export interface BundleSource {
  /** Every entry inside the bundle, at any depth. */
  entries: readonly BundleEntryInfo[];
  /** The bytes of a regular file listed in `entries`, in chunks. */
  read(path: string): Iterable<Uint8Array>;
}

export interface BundleOptions {
  /** Reserved for options that change bundle results (a key file, later). */
}

/** The fields of a bundle entry that the caller fills from where the bundle lies. */
export type ScoredBundle = Omit<BundleEntry, "path">;

export function scoreBundle(src: BundleSource, _options: BundleOptions = {}): ScoredBundle {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const files = new Map<string, string>(); // path → file digest
  const byPath = new Map(src.entries.map((e) => [e.path, e]));
  const unsafe = new Set<string>();

  for (const e of src.entries) {
    const problem = unsafeReason(e);
    if (problem === null) continue;
    unsafe.add(e.path);
    errors.push(finding("UNSAFE_PATH", e.path, null, `${JSON.stringify(e.path)} is ${problem}`));
  }
  const regular = (p: string) => {
    const e = byPath.get(p);
    return e !== undefined && e.kind === "file" && !unsafe.has(p) ? e : null;
  };

  // The journal, streamed: chain, header, then the profile's records.
  const reader = new JournalReader(JOURNAL, errors, warnings);
  const dropped = new Map<string, { file: string | null; code: Code; n: number }>();
  let journalStructural = false; // a §2/§3 code among the journal's findings, counted as they arrive
  let line1: Record<string, unknown> | null = null;
  let header: Header | null = null;
  let profileName: string | null = null;
  let native: NativeJournal | null = null;
  if (regular(JOURNAL) !== null) {
    const hash = createHash("sha256");
    const chunks = hashing(src.read(JOURNAL), hash);
    let seen = errors.length;
    for (const raw of splitLines(chunks)) {
      const rec = reader.line(raw);
      if (raw.number === 1) {
        line1 = reader.decoded ?? (raw.terminated && raw.bytes !== null ? lenientObject(raw.bytes) : null);
        ({ header, profile: profileName } = readHeader(rec, JOURNAL, errors));
        if (profileName === "native-game") native = new NativeJournal(JOURNAL, header?.deadline ?? null, errors);
      } else if (rec !== null && native !== null && raw.terminated) native.record(rec, raw.number);
      for (let i = seen; i < errors.length; i++) if (STRUCTURAL.has(errors[i]!.code)) journalStructural = true;
      if (errors.length > MAX_FINDINGS)
        for (const f of errors.splice(MAX_FINDINGS)) {
          const k = `${f.file}\u0000${f.code}`;
          const d = dropped.get(k) ?? { file: f.file, code: f.code, n: 0 };
          d.n++;
          dropped.set(k, d);
        }
      seen = errors.length;
    }
    if (reader.records === 0 && !reader.torn) errors.push(finding("HEADER_MISSING", JOURNAL, null, "the journal is empty"));
    else if (reader.records === 0) errors.push(finding("HEADER_MISSING", JOURNAL, null, "the journal holds no complete line"));
    files.set(JOURNAL, hash.digest("hex"));
  } else if (!unsafe.has(JOURNAL)) {
    errors.push(finding("HEADER_MISSING", JOURNAL, null, "journal.jsonl is not a regular file"));
  }

  // Companion files: read only where the contract says they are evidence. `false`: present but
  // too large to read (reported; it still enters the digest below, streamed).
  const readDoc = (p: string): Uint8Array | null | false => {
    const e = regular(p);
    if (e === null) return null;
    if (e.size > MAX_DOCUMENT_BYTES) {
      errors.push(finding("FILE_TOO_LARGE", p, null, `${e.size} bytes exceeds ${MAX_DOCUMENT_BYTES}`));
      return false;
    }
    const bytes = Buffer.concat([...src.read(p)]);
    files.set(p, sha256(bytes));
    return bytes;
  };
  if (native !== null && header !== null) {
    // §3: a journal with a §2/§3 error is not compared with its summary or snapshot.
    const comparable = !reader.structural && !journalStructural;
    if (native.end === null) {
      if (regular(SUMMARY) !== null) warnings.push(finding("SUMMARY_UNEXPECTED", SUMMARY, null, "summary.json beside an unterminated journal is not checked"));
    } else if (comparable) {
      const bytes = readDoc(SUMMARY);
      if (bytes !== false) checkSummary(bytes, expectedSummary(header, reader, native), errors);
    }
    if (native.finalScore !== null && comparable) {
      const bytes = readDoc(SNAPSHOT);
      if (bytes !== false) checkSnapshot(bytes, files.get(SNAPSHOT) ?? null, header, native, errors);
    }
  }

  // Every other regular file enters the digest as opaque bytes.
  for (const e of src.entries) {
    if (e.kind !== "file" || files.has(e.path) || unsafe.has(e.path)) continue;
    const h = createHash("sha256");
    for (const c of src.read(e.path)) h.update(c);
    files.set(e.path, h.digest("hex"));
  }

  for (const { file, code, n } of dropped.values())
    errors.push(finding(code, file, null, `${n} more ${code} findings not listed (the first ${MAX_FINDINGS} findings of the bundle are)`));

  const attribution = attributionOf(line1);
  const profile: Profile | null = profileName === "native-game" || line1?.["profile"] === "world" ? (line1?.["profile"] as Profile) : null;
  const valid = errors.length === 0;
  const o = native?.outcome(header?.deadline ?? null) ?? null;
  return blankEntry({
    digest: bundleDigest(files),
    profile,
    ...attribution,
    validity: valid ? "valid" : "invalid",
    errors,
    warnings,
    // Invalid bundles keep what was parsed (status, ending); only a valid one earns victory/late.
    status: o?.status ?? (line1 !== null && line1["type"] === "session" ? "unterminated" : null),
    ending: o?.ending ?? null,
    final_score: o?.final_score ?? null,
    victory: valid && o !== null ? o.victory : null,
    late: valid && o !== null ? o.late : null,
  });
}

/** §1 entry checks: why an entry makes its bundle UNSAFE_PATH, or null. */
export function unsafeReason(e: BundleEntryInfo): string | null {
  return e.kind === "symlink" ? "a symbolic link"
    : e.kind === "other" ? "not a regular file or directory"
    : e.kind === "unnamed" ? "a name that is not valid UTF-8"
    : /[\t\n\r]/.test(e.path) ? "a name holding a tab or line break"
    : e.kind === "file" && e.size > MAX_FILE_BYTES ? "larger than 4 GiB"
    : null;
}

/** A bundle entry with every field the given evidence did not settle left empty. */
export function blankEntry(fields: Partial<ScoredBundle> & Pick<ScoredBundle, "validity" | "errors">): ScoredBundle {
  const { validity, errors, ...rest } = fields; // placed in §10's key order below
  return {
    digest: "",
    profile: null,
    experiment: null,
    trial: null,
    attempt: null,
    seed: null,
    validity,
    errors,
    warnings: [],
    status: null,
    task: null,
    ending: null,
    final_score: null,
    scenario: null,
    victory: null,
    late: null,
    dimensions: null,
    pass: null,
    state: null,
    rewards: null,
    reward_source: null,
    flags: [],
    advisory: null,
    ...rest,
  };
}

function* hashing(chunks: Iterable<Uint8Array>, hash: ReturnType<typeof createHash>): Generator<Uint8Array> {
  for (const c of chunks) {
    hash.update(c);
    yield c;
  }
}

export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** §7: SHA-256 over "<path>\t<file digest>\n" for every regular file, by byte order of path, seal.json excluded. */
export function bundleDigest(files: ReadonlyMap<string, string>): string {
  const paths = [...files.keys()].filter((p) => p !== SEAL).sort(byteCompare);
  const h = createHash("sha256");
  for (const p of paths) h.update(`${p}\t${files.get(p)}\n`);
  return h.digest("hex");
}
