// One bundle's result (contract §10 bundle entry) as a pure function of its bytes: the caller
// supplies the entry listing and a way to read chunks; nothing here touches the file system.

import { createHash } from "node:crypto";
import { finding, type Code, type Finding } from "../../core/codes.js";
import { EvidenceFolder, type BundleOptions, type BundleSource } from "../../core/folder.js";
import { JournalReader, readHeader, STRUCTURAL, type Header, type JournalRecord } from "./journal.js";
import { attributionOf, lenientHeader, lenientObject } from "./line1.js";
import { splitLines, type RawLine } from "../../core/json/lines.js";
import { checkSnapshot, checkSummary, expectedSummary, SNAPSHOT, SUMMARY } from "./native/companions.js";
import { NativeJournal } from "./native/journal.js";
import { check } from "../../core/schema.js";
import { checkSeal } from "../../core/seal.js";
import { expectedWorldSummary, readScenario, SCENARIO, WORLD } from "./world/companions.js";
import { computeDimensions, passOf, type Dimension, type DimensionName } from "./world/dimensions.js";
import { WorldJournal, WorldLog } from "./world/journal.js";
import { worldHeader, worldSummarySchema, type Scenario } from "./world/records.js";
import { blankEntry, type Profile, type ScoredBundle } from "../../core/results.js";
import { clip } from "../../core/text.js";
import { NO_ENTRY_IDENTITY, text, timesOf, type EntryIdentity } from "../../core/identity.js";

export const JOURNAL = "journal.jsonl";
/**
 * Findings listed per bundle. Every failing line is reported up to this many; past it, one
 * finding per code says how many more there were, so memory stays flat on a wholly broken journal.
 */
export const MAX_FINDINGS = 1000;

export function scoreBundle(src: BundleSource, options: BundleOptions = {}): ScoredBundle {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const folder = new EvidenceFolder(src, errors, warnings, "unsafe");
  const { files, skipped: unsafe } = folder;
  const regular = (p: string) => folder.regular(p);
  // Companion documents: read only where the contract says they are evidence. `false`: present
  // but too large to read (reported; it still enters the digest, streamed).
  const readDoc = (p: string) => folder.read(p);
  const logs = new LogReading(src, files, errors, warnings);
  /** §4.1/§5.5: an ended journal's summary must equal its recomputation; an unterminated one's is stale. */
  const summaryCheck = (
    ended: boolean,
    comparable: boolean,
    expected: () => Record<string, unknown>,
    schema?: Parameters<typeof checkSummary>[3],
  ) => {
    if (!ended) {
      if (regular(SUMMARY) !== null)
        warnings.push(
          finding("SUMMARY_UNEXPECTED", SUMMARY, null, "summary.json beside an unterminated journal is not checked"),
        );
    } else if (comparable) {
      const bytes = readDoc(SUMMARY);
      if (bytes !== false) checkSummary(bytes, expected(), errors, schema);
    }
  };

  // The journal, streamed: chain, header, then the profile's records.
  const { journal, line1, named, header: h, profileName, native: nj, world: wd } = readJournal(logs, folder, errors);
  if (journal !== null && journal.reader.records === 0)
    errors.push(
      finding(
        "HEADER_MISSING",
        JOURNAL,
        null,
        journal.reader.torn ? "the journal holds no complete line" : "the journal is empty",
      ),
    );
  else if (journal === null && !unsafe.has(JOURNAL))
    errors.push(finding("HEADER_MISSING", JOURNAL, null, "journal.jsonl is not a regular file"));

  if (nj !== null && h !== null && journal !== null) {
    // §3: a journal with a §2/§3 error is not compared with its summary or snapshot.
    const comparable = !journal.structural;
    summaryCheck(nj.end !== null, comparable, () => expectedSummary(h, journal.reader, nj));
    if (nj.finalScore !== null && comparable) {
      const bytes = readDoc(SNAPSHOT);
      if (bytes !== false) checkSnapshot(bytes, files.get(SNAPSHOT) ?? null, h, nj, errors);
    }
  }

  let dimensions: Record<DimensionName, Dimension> | null = null;
  if (wd !== null && journal !== null) {
    // The world log: its own header and chain, the same session; ground truth the agent never wrote.
    // Read even when the journal's header is broken: every failing line is reported.
    const log = new WorldLog(WORLD, errors, wd.journal.namedAttempts());
    const wlog = logs.read(WORLD, regular(WORLD) !== null, (rec, raw) => {
      if (raw.number > 1) return void (rec !== null && log.record(rec, raw.number));
      const header = rec === null ? null : check(worldHeader, rec, WORLD, 1, errors);
      if (header !== null && h !== null && header.session !== h.session)
        errors.push(
          finding(
            "WORLD_LINK",
            WORLD,
            1,
            `world session ${clip(header.session)} is not the journal's ${clip(h.session)}`,
          ),
        );
    });
    if (wlog === null && !unsafe.has(WORLD))
      errors.push(finding("WORLD_MISSING", WORLD, null, "a world bundle needs world.jsonl"));
    else if (wlog !== null && wlog.reader.records === 0)
      errors.push(finding("WORLD_MISSING", WORLD, null, "world.jsonl holds no complete line"));
    const comparable = h !== null && !journal.structural && wlog !== null && !wlog.structural;
    summaryCheck(
      wd.journal.end !== null,
      comparable,
      () => expectedWorldSummary(h!, journal.reader, wlog!.reader, wd.journal, log),
      worldSummarySchema,
    );
    if (errors.length === 0 && wd.scenario !== null) dimensions = computeDimensions(wd.journal, log, wd.scenario);
  }

  const digest = folder.digest();
  if (options.hmacKey !== undefined) checkSeal(folder, digest, options.hmacKey, errors);
  logs.reportDropped();

  const attribution = attributionOf(line1);
  // A broken header's line 1 read leniently still says it is a world bundle (its dimensions' words).
  const profile: Profile | null = profileName ?? (named?.["profile"] === "world" ? "world" : null);
  const valid = errors.length === 0;
  const o = nj?.outcome(h?.deadline ?? null) ?? null;
  const ended = o?.status ?? wd?.journal.end?.status;
  return blankEntry({
    digest,
    profile,
    ...attribution,
    validity: valid ? "valid" : "invalid",
    errors,
    warnings,
    // Invalid bundles keep what was parsed (status, ending); only a valid one earns victory/late/pass.
    status: ended ?? (line1 !== null && line1["type"] === "session" ? "unterminated" : null),
    ending: o?.ending ?? null,
    final_score: o?.final_score ?? null,
    scenario: wd !== null ? (files.get(SCENARIO) ?? null) : null,
    victory: valid && o !== null ? o.victory : null,
    late: valid && o !== null ? o.late : null,
    // Computed before the seal could be checked: a bundle the seal makes invalid earns none.
    dimensions: valid ? dimensions : null,
    pass: valid && dimensions !== null ? passOf(dimensions) : null,
    identity: bundleIdentity(h, nj?.end?.at ?? wd?.journal.end?.at ?? null),
  });
}

/**
 * Issue 37: what a bundle's header records of its run (§3): its harness and revision, the model
 * and agent where `meta` names them under those keys (`meta.model`, as the contract's examples
 * write it; `meta.agent`; a string, else nothing: no other meta key is read as either), and its
 * span from the header's `at` to the end record's (ms since the epoch: instants). No benchmark:
 * the experiment's tasks are its entries' tasks or scenarios. Null when the header is unreadable.
 */
function bundleIdentity(h: Header | null, endAt: number | null): EntryIdentity | null {
  if (h === null) return null;
  return {
    ...NO_ENTRY_IDENTITY,
    agent: text(h.meta["agent"]),
    model: text(h.meta["model"]),
    harness: { name: h.harness.name, version: text(h.harness.revision) },
    ...timesOf(instant(h.at), endAt === null ? null : instant(endAt)),
  };
}

/** Milliseconds since the epoch as an ISO instant; null past what a date holds. */
function instant(ms: number): string | null {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : null;
}

/** What the journal's first line and records give, filled as it is streamed. */
interface JournalRead {
  journal: { reader: JournalReader; structural: boolean } | null;
  /** Line 1 as read (leniently where it is no sound record), for attribution. */
  line1: Record<string, unknown> | null;
  /** Line 1 for the profile: null when that is ambiguous. */
  named: Record<string, unknown> | null;
  header: Header | null;
  profileName: Profile | null;
  native: NativeJournal | null;
  world: { journal: WorldJournal; scenario: Scenario | null } | null;
}

function readJournal(logs: LogReading, folder: EvidenceFolder, errors: Finding[]): JournalRead {
  const read: JournalRead = {
    journal: null,
    line1: null,
    named: null,
    header: null,
    profileName: null,
    native: null,
    world: null,
  };
  read.journal = logs.read(JOURNAL, folder.regular(JOURNAL) !== null, (rec, raw, reader) => {
    if (raw.number === 1) {
      const readable = raw.terminated && raw.bytes !== null;
      read.line1 = reader.decoded ?? (readable ? lenientObject(raw.bytes!) : null);
      // A line 1 that is no sound record still names its profile when read leniently: the rest is
      // validated with it, so every failing line is reported (it never earns credit: line 1 failed).
      read.named = reader.decoded ?? (readable ? lenientHeader(raw.bytes!) : null);
      const { header, profile, deadline } = readHeader(rec, JOURNAL, errors, read.named);
      read.header = header;
      read.profileName = profile;
      if (profile === "native-game") read.native = new NativeJournal(JOURNAL, deadline, errors);
      if (profile === "world") {
        const scenario = readScenario(folder.read(SCENARIO), errors); // before the records: it types the requests
        read.world = { journal: new WorldJournal(JOURNAL, scenario, errors), scenario };
      }
    } else if (rec !== null) {
      read.native?.record(rec, raw.number);
      read.world?.journal.record(rec, raw.number);
    } else {
      // Reported by the reader; the profile resynchronises rather than guess what it held.
      read.native?.unreadable(raw.number);
      read.world?.journal.unreadable(raw.number);
    }
  });
  return read;
}

/**
 * Streams chained JSONL logs (the journal, the world log): framing, encoding, chain, the file
 * digest, whether a §2/§3 rule failed, and the per-bundle cap on listed findings.
 */
class LogReading {
  private readonly dropped = new Map<string, { file: string | null; code: Code; n: number }>();

  constructor(
    private readonly src: BundleSource,
    private readonly files: Map<string, string>,
    private readonly errors: Finding[],
    private readonly warnings: Finding[],
  ) {}

  /** Read `file` (when `present`), calling `onLine` for every complete line; null when absent. */
  read(
    file: string,
    present: boolean,
    onLine: (rec: JournalRecord | null, raw: RawLine, reader: JournalReader) => void,
  ): { reader: JournalReader; structural: boolean } | null {
    if (!present) return null;
    const { errors } = this;
    const reader = new JournalReader(file, errors, this.warnings);
    const hash = createHash("sha256");
    let structural = false;
    let seen = errors.length;
    for (const raw of splitLines(hashing(this.src.read(file), hash))) {
      const rec = reader.line(raw);
      if (raw.terminated) onLine(rec, raw, reader);
      for (let i = seen; i < errors.length; i++)
        if (errors[i]!.file === file && STRUCTURAL.has(errors[i]!.code)) structural = true;
      if (errors.length > MAX_FINDINGS)
        for (const f of errors.splice(MAX_FINDINGS)) {
          const k = `${f.file}\u0000${f.code}`;
          const d = this.dropped.get(k) ?? { file: f.file, code: f.code, n: 0 };
          d.n++;
          this.dropped.set(k, d);
        }
      seen = errors.length;
    }
    this.files.set(file, hash.digest("hex"));
    return { reader, structural: structural || reader.structural };
  }

  reportDropped(): void {
    for (const { file, code, n } of this.dropped.values())
      this.errors.push(
        finding(
          code,
          file,
          null,
          `${n} more ${code} findings not listed (the first ${MAX_FINDINGS} findings of the bundle are)`,
        ),
      );
  }
}

function* hashing(chunks: Iterable<Uint8Array>, hash: ReturnType<typeof createHash>): Generator<Uint8Array> {
  for (const c of chunks) {
    hash.update(c);
    yield c;
  }
}
