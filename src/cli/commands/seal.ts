// `assay seal` (contract §8), and the key file every command that checks seals reads. The only
// command that writes into evidence, and only seal.json, never over an existing one.

import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SEAL } from "../../core/folder.js";
import { keyFingerprint, sealText } from "../../core/seal.js";
import { forTerminal } from "../../core/text.js";
import { discover } from "../../io/discover.js";
import { OutputError, writeOutput } from "../../io/output.js";
import { scoreDirectory } from "../../pool/score-directory.js";
import { usage } from "../args.js";
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

const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);

/**
 * Read a key file, or refuse it in one line naming the path (never the content): missing,
 * unreadable, a folder, empty, over 64 KiB, or inside a root being read (where it would be sealed
 * into the evidence, or shown to a model by analyze). A FIFO is read (`<(pass show key)`).
 */
export function readKeyFile(file: string, roots: readonly string[] = []): HmacKey {
  const refuse = (why: string): never => {
    throw new UsageError(`--hmac-key-file ${forTerminal(file)}: ${why}`);
  };
  const cannot = (e: unknown): never => {
    const code = (e as NodeJS.ErrnoException).code;
    return refuse(code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : `cannot be read (${code ?? (e as Error).message})`);
  };
  let real: string | null = null;
  try {
    real = realpathSync(file);
  } catch {
    // A descriptor of this process (/dev/fd/N) may not resolve: it lies in no root.
  }
  for (const root of roots) {
    let r: string;
    try {
      r = realpathSync(root);
    } catch {
      continue; // the command reports a missing root itself
    }
    if (real !== null && inside(real, r)) refuse(`it lies inside ${forTerminal(root)}, which is being read: keep the key outside the evidence`);
  }
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    return cannot(e);
  }
  const buf = Buffer.alloc(MAX_KEY_BYTES + 1);
  let n = 0;
  try {
    if (fstatSync(fd).isDirectory()) refuse("it is a folder, not a key file");
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
  return { bytes, fingerprint: keyFingerprint(bytes) };
}

type Outcome = { sealed: "sealed" | "already" } | { why: string; exit: number };

/** Seal one bundle when it earns it; why not otherwise. */
function sealOne(dir: string, path: string, key: HmacKey): Outcome {
  const not = (why: string, exit: number = EXIT.FAILED): Outcome => ({ why, exit });
  const entry = scoreDirectory(dir, path); // without the key: what is checked is the evidence, not an old seal
  if (entry.validity === "error") return not(`it could not be scored (${entry.errors.map((f) => `${f.code}: ${f.message}`).join("; ")})`, EXIT.INCOMPLETE);
  if (entry.validity === "invalid") return not(`invalid evidence is never sealed (${[...new Set(entry.errors.map((f) => f.code))].join(", ")})`);
  if (entry.status === "unterminated") return not("its journal has no end record: seal it once the run has ended");
  // The mac covers the digest just scored: a bundle that changes before the write below fails its
  // seal later, which is the safe direction.
  const text = sealText(key.bytes, entry.digest);
  const file = join(dir, SEAL);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (st !== undefined) {
    if (st.isFile() && st.size === Buffer.byteLength(text) && readFileSync(file).equals(Buffer.from(text))) return { sealed: "already" };
    return not(st.isFile() ? "seal.json holds another seal (left as it is)" : "seal.json is there and is not a file (left as it is)");
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
  const { values, positionals } = usage(() =>
    parseArgs({ args: argv, allowPositionals: true, options: { "hmac-key-file": { type: "string" }, quiet: { type: "boolean" } } }),
  );
  if (positionals.length === 0) throw new UsageError("assay seal needs at least one ROOT (see assay seal --help)");
  if (values["hmac-key-file"] === undefined) throw new UsageError("assay seal needs --hmac-key-file FILE, the key to seal with");
  const key = readKeyFile(values["hmac-key-file"], positionals);
  const n = { sealed: 0, already: 0, not: 0, harbor: 0 };
  let exit: number = EXIT.OK;
  // One bundle at a time, counted, never listed: memory stays flat however many there are.
  for (const found of discover(positionals, (path, reason) => io.stderr(`assay seal: skipped ${forTerminal(path)}: ${reason}\n`))) {
    if (found.harbor) {
      n.harbor++;
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
    if (n.harbor > 0) io.stderr(`assay seal: ${n.harbor} Harbor trial${n.harbor === 1 ? "" : "s"} skipped: Harbor trials carry no seal\n`);
    io.stderr(`assay seal: ${n.sealed} sealed, ${n.already} already sealed, ${n.not} not sealed (key fingerprint ${key.fingerprint})\n`);
  }
  return exit;
}
