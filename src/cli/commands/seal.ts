// `assay seal` (contract §8), and the key file every command that checks seals reads. The only
// command that writes into evidence, and only seal.json, never over an existing one.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { SEAL } from "../../core/folder.js";
import { keyFingerprint, sealText } from "../../core/seal.js";
import { forTerminal } from "../../core/text.js";
import { discover } from "../../io/discover.js";
import { DECLARED, declarationOf, type KindName } from "../../kinds/declared.js";
import { evidenceCount, WORDS } from "../../report/vocabulary.js";
import { OutputError, writeOutput } from "../../io/output.js";
import { scoreDirectory } from "../../pool/score-directory.js";
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

/** Largest key file read: a key is a secret of some bytes, not a document. */
export const MAX_KEY_BYTES = 64 * 1024;

export interface HmacKey {
  /** The key: the file's exact bytes. Never printed, stored or logged. */
  bytes: Buffer;
  /** §7: HMAC-SHA256(key, "assay.key-id"), lowercase hex; not secret. */
  fingerprint: string;
}

const inside = (path: string, folder: string): boolean =>
  path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);

/** What a path that is not a regular file is, in words. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (a named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  return "not a regular file";
}

/**
 * Read a key file, or refuse it in one line naming the path (never the content): missing,
 * unreadable, empty, over 64 KiB, inside a root being read (where it would be sealed into the
 * evidence, or shown to a model by analyze), or anything but a regular file: a FIFO with no writer
 * would block forever, a device need never end. It is opened without blocking and checked again
 * once open (it may have been swapped since the stat). A key that group or others may read works,
 * with one warning line through `warn` (naming neither the key nor its path, as no output does).
 */
export function readKeyFile(file: string, roots: readonly string[], warn: (line: string) => void): HmacKey {
  const refuse = (why: string): never => {
    throw new UsageError(`--hmac-key-file ${forTerminal(file)}: ${why}`);
  };
  const cannot = (e: unknown): never => {
    const code = (e as NodeJS.ErrnoException).code;
    return refuse(
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES"
          ? "permission denied"
          : `cannot be read (${code ?? (e as Error).message})`,
    );
  };
  let real: string | null = null;
  try {
    real = realpathSync(file);
  } catch {
    // Reported below, by the stat.
  }
  for (const root of roots) {
    let r: string;
    try {
      r = realpathSync(root);
    } catch {
      continue; // the command reports a missing root itself
    }
    if (real !== null && inside(real, r))
      refuse(`it lies inside ${forTerminal(root)}, which is being read: keep the key outside the evidence`);
  }
  const notRegular = (st: Stats): void => {
    if (!st.isFile()) refuse(`it is ${kindOf(st)}, not a key file: a key is read from a regular file`);
  };
  let st: Stats;
  try {
    st = statSync(file); // never blocks, whatever the path is
  } catch (e) {
    return cannot(e);
  }
  notRegular(st);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return cannot(e);
  }
  const buf = Buffer.alloc(MAX_KEY_BYTES + 1);
  let n = 0;
  let mode = 0;
  try {
    const opened = fstatSync(fd);
    notRegular(opened);
    mode = opened.mode;
    // One byte past the limit tells a key of exactly 64 KiB from a larger file.
    while (n < buf.length) {
      let r: number;
      try {
        r = readSync(fd, buf, n, buf.length - n, null);
      } catch (e) {
        return cannot(e);
      }
      if (r === 0) break;
      n += r;
    }
  } finally {
    closeSync(fd);
  }
  if (n === 0) refuse("it is empty: a key is at least one byte");
  if (n > MAX_KEY_BYTES) refuse(`it is larger than ${MAX_KEY_BYTES} bytes: not a key file`);
  const bytes = Buffer.from(buf.subarray(0, n));
  buf.fill(0);
  if ((mode & 0o044) !== 0)
    warn(
      `assay: the --hmac-key-file can be read by ${mode & 0o004 ? "anyone" : "its group"} (mode ${(mode & 0o777).toString(8).padStart(4, "0")}): whoever reads it can make seals and documents assay accepts (chmod 600 it)\n`,
    );
  return { bytes, fingerprint: keyFingerprint(bytes) };
}

type Outcome = { sealed: "sealed" | "already" } | { why: string; exit: number };

/**
 * Seal one bundle whose files can be read safely, whatever its verdict (§8 revision 2): a killed
 * run's torn or unterminated journal is evidence too, and completing it later to fake an ending is
 * the edit a seal exists to catch. A seal changes no verdict. Why not otherwise.
 */
function sealOne(dir: string, path: string, key: HmacKey): Outcome {
  const not = (why: string, exit: number = EXIT.FAILED): Outcome => ({ why, exit });
  const entry = scoreDirectory(dir, path); // without the key: what is digested is the evidence, not an old seal
  if (entry.validity === "error")
    return not(
      `it could not be read (${entry.errors.map((f) => `${f.code}: ${f.message}`).join("; ")})`,
      EXIT.INCOMPLETE,
    );
  const unsafe = entry.errors.filter((f) => f.code === "UNSAFE_PATH");
  if (unsafe.length > 0)
    return not(`its files cannot be read safely (UNSAFE_PATH: ${unsafe.map((f) => f.file ?? "").join(", ")})`);
  // The mac covers the digest just scored: a bundle that changes before the write below fails its
  // seal later, which is the safe direction.
  const text = sealText(key.bytes, entry.digest);
  const file = join(dir, SEAL);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st !== undefined) {
    if (st.isFile() && st.size === Buffer.byteLength(text) && readFileSync(file).equals(Buffer.from(text)))
      return { sealed: "already" };
    return not(
      st.isFile()
        ? "seal.json holds another seal (left as it is)"
        : "seal.json is there and is not a file (left as it is)",
    );
  }
  try {
    writeOutput(file, text, { create: true }); // a seal.json that appears meanwhile is never replaced
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return not(e.message.split(file).join(forTerminal(file)), EXIT.INCOMPLETE);
  }
  return { sealed: "sealed" };
}

export function sealCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { "hmac-key-file": { type: "string" }, quiet: { type: "boolean" } },
  });
  if (positionals.length === 0) throw new UsageError("assay seal needs at least one ROOT (see assay seal --help)");
  if (values["hmac-key-file"] === undefined)
    throw new UsageError("assay seal needs --hmac-key-file FILE, the key to seal with");
  const key = readKeyFile(values["hmac-key-file"], positionals, io.stderr);
  const n = { sealed: 0, already: 0, not: 0 };
  /** Evidence of kinds that carry no seal, passed over: how many of each. */
  const unsealed = new Map<KindName, number>();
  let exit: number = EXIT.OK;
  // One bundle at a time, counted, never listed: memory stays flat however many there are.
  for (const found of discover(positionals, (path, reason) =>
    io.stderr(`assay seal: skipped ${forTerminal(path)}: ${reason}\n`),
  )) {
    if (declarationOf(found.kind).unsealed !== null) {
      unsealed.set(found.kind, (unsealed.get(found.kind) ?? 0) + 1);
      continue;
    }
    const o = sealOne(found.dir, found.path, key);
    if ("sealed" in o) n[o.sealed]++;
    else {
      n.not++;
      exit = Math.max(exit, o.exit);
      io.stderr(`assay seal: ${forTerminal(found.path)}: not sealed: ${o.why}\n`);
    }
  }
  if (!values.quiet) {
    for (const d of DECLARED) {
      const count = unsealed.get(d.name) ?? 0;
      if (count > 0) io.stderr(`assay seal: ${evidenceCount(WORDS[d.profiles[0]], count)} skipped: ${d.unsealed}\n`);
    }
    io.stderr(
      `assay seal: ${n.sealed} sealed, ${n.already} already sealed, ${n.not} not sealed (key fingerprint ${key.fingerprint})\n`,
    );
  }
  return exit;
}
