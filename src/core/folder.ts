// A folder of evidence as the scorers see it: its listing, the §1 entry checks, reading the
// documents the contract names, and the §7 digest of every regular file. Pure: the caller supplies
// the listing and a way to read chunks; nothing here touches the file system.

import { createHash } from "node:crypto";
import { finding, type Finding } from "./codes.js";
import { MAX_DOCUMENT_BYTES } from "./json/decode.js";
import { byteCompare, clip } from "./text.js";

export const SEAL = "seal.json";
/**
 * Files at the top of a trial or container folder that are a reading of its evidence written after
 * the fact (`harbor analyze`: analysis.json, analysis.md; `harbor jobs summarize`: summary.md),
 * never part of it, nor of its digest: analysing a folder keeps its identity.
 */
export const READINGS: ReadonlySet<string> = new Set(["analysis.json", "analysis.md", "summary.md"]);
const MAX_FILE_BYTES = 4 * 1024 ** 3;

/**
 * "unnamed": a name that is not valid UTF-8 (it cannot be named in results). "too-deep": a path the
 * file system refused to name (longer than PATH_MAX, or through a loop of links), never read.
 */
export type EntryKind = "file" | "dir" | "symlink" | "other" | "unnamed" | "too-deep";
export interface BundleEntryInfo {
  /** Path relative to the folder, '/'-separated. */
  path: string;
  kind: EntryKind;
  size: number;
  /** "mtime_ns:inode" when the lister was asked for it (the store's stamps); unused here. */
  stamp?: string;
}
export interface BundleSource {
  /** Every entry inside the folder, at any depth. */
  entries: readonly BundleEntryInfo[];
  /** The bytes of a regular file listed in `entries`, in chunks. */
  read(path: string): Iterable<Uint8Array>;
  /**
   * The folder's own name, where it lies on disk: a kind whose evidence is named by its folder (a
   * SWE-bench instance) reads it, and then makes its digest cover it (a store keyed by digest must
   * never give one folder's verdict to another of the same files).
   */
  readonly name?: string;
}

/** §1 entry checks: why an entry makes its bundle UNSAFE_PATH, or null. */
/** What a folder kind's scorer is asked besides the folder (kinds/scorer.ts): the same for every kind. */
export interface BundleOptions {
  /** §8: the exact bytes of a key file; a sealed kind's folder must then hold a seal.json made with it. */
  hmacKey?: Uint8Array | undefined;
  /** --dataset: the benchmark's own task list, which a kind that reads one checks its evidence against. */
  dataset?: DatasetFile | undefined;
}

/** A dataset file as a run was given it: its path, and the SHA-256 of its bytes when the run began (a worker reading other bytes fails). */
export interface DatasetFile {
  file: string;
  sha256: string;
}

export function unsafeReason(e: BundleEntryInfo): string | null {
  return e.kind === "symlink"
    ? "a symbolic link"
    : e.kind === "other"
      ? "not a regular file or directory"
      : e.kind === "unnamed"
        ? "a name that is not valid UTF-8"
        : e.kind === "too-deep"
          ? "nested too deep for the file system to name"
          : /[\t\n\r]/.test(e.path)
            ? "a name holding a tab or line break"
            : e.kind === "file" && e.size > MAX_FILE_BYTES
              ? "larger than 4 GiB"
              : null;
}

export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** §7: SHA-256 over "<path>\t<file digest>\n" for every regular file, by byte order of path, seal.json excluded. */
export function bundleDigest(files: ReadonlyMap<string, string>, excluded: string | null = SEAL): string {
  const paths = [...files.keys()].filter((p) => p !== excluded).sort(byteCompare);
  const h = createHash("sha256");
  for (const p of paths) h.update(`${p}\t${files.get(p)}\n`);
  return h.digest("hex");
}

export class EvidenceFolder {
  /** path → file digest, for every file read so far (and, after `digest`, every regular file). */
  readonly files = new Map<string, string>();
  /** Entries never read: unsafe ones, and ignored links. */
  readonly skipped = new Set<string>();
  private readonly byPath: Map<string, BundleEntryInfo>;

  /**
   * `links`: "unsafe" — a symlink, or a path too deep to name, is UNSAFE_PATH like any other unsafe
   * entry (assay bundles, §1); "ignored" — it is never followed or read, only warned about (Harbor
   * trials, §11).
   */
  constructor(
    readonly src: BundleSource,
    private readonly errors: Finding[],
    warnings: Finding[],
    links: "unsafe" | "ignored",
  ) {
    this.byPath = new Map(src.entries.map((e) => [e.path, e]));
    for (const e of src.entries) {
      if ((e.kind === "symlink" || e.kind === "too-deep") && links === "ignored") {
        warnings.push(
          e.kind === "symlink"
            ? finding("TRIAL_SYMLINK", e.path, null, "a symbolic link: not followed, not read, not in the digest")
            : finding(
                "PATH_TOO_DEEP",
                e.path,
                null,
                "nested too deep for the file system to name: not read, not in the digest",
              ),
        );
        this.skipped.add(e.path);
        continue;
      }
      const problem = unsafeReason(e);
      if (problem === null) continue;
      this.skipped.add(e.path);
      errors.push(finding("UNSAFE_PATH", e.path, null, `${clip(e.path, 200)} is ${problem}`)); // cut: the reason must survive a long path
    }
  }

  /** Any entry at `p`, whatever its kind. */
  has(p: string): boolean {
    return this.byPath.has(p);
  }

  /** The entry at `p` when it is a regular file assay may read. */
  regular(p: string): BundleEntryInfo | null {
    const e = this.byPath.get(p);
    return e !== undefined && e.kind === "file" && !this.skipped.has(p) ? e : null;
  }

  /** A document's bytes: null when absent (or not readable), false when too large (reported; still digested). */
  read(p: string, limit = MAX_DOCUMENT_BYTES): Uint8Array | null | false {
    const e = this.regular(p);
    if (e === null) return null;
    if (e.size > limit) {
      this.errors.push(finding("FILE_TOO_LARGE", p, null, `${e.size} bytes exceeds ${limit}`));
      return false;
    }
    const chunks = [...this.src.read(p)];
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks); // one chunk: no copy
    this.files.set(p, sha256(bytes));
    return bytes;
  }

  /** The §7 digest: every regular file not read so far enters it as opaque bytes, streamed. */
  digest(excluded: string | null = SEAL): string {
    for (const e of this.src.entries) {
      if (e.kind !== "file" || this.files.has(e.path) || this.skipped.has(e.path)) continue;
      const hash = createHash("sha256");
      for (const c of this.src.read(e.path)) hash.update(c);
      this.files.set(e.path, hash.digest("hex"));
    }
    return bundleDigest(this.files, excluded);
  }
}
