// `assay attest` (contract §15): an in-toto Statement about a results document and the evidence
// under it, in a DSSE envelope signed with ed25519; `attest keygen` makes a key pair; `attest verify`
// (attest-verify.ts) checks one. The statement is built from the document alone (§15.3: it carries
// every digest it needs), read as merge reads a shard (its §8 refusals; a keyed one needs its key).
import { createHash, createPublicKey } from "node:crypto";
import { closeSync, openSync, readSync, unlinkSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { evaluateCriteria, parseCriteria } from "../../core/attest/criteria.js";
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "../../core/attest/dsse.js";
import { generateKeys, keyidOf, privateKeyFrom, publicHex } from "../../core/attest/keys.js";
import { evidenceRoot } from "../../core/attest/merkle.js";
import { CriteriaUnits, type UnitsOf } from "../../core/attest/paired.js";
import { projectResults, type ProjectionSource, type Statement } from "../../core/attest/statement.js";
import type { BundleEntry, Experiment } from "../../core/results.js";
import { forTerminal } from "../../core/text.js";
import { packageDirHash } from "../../io/dirhash.js";
import { checkOutput, writeOutput } from "../../io/output.js";
import { checkKeyOf, checkMacOf, readShard } from "../../io/shard-reader.js";
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { readKeyFile } from "./seal.js";

export async function attestCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === "keygen") return keygen(argv.slice(1), io);
  if (argv[0] === "pubkey") return pubkey(argv.slice(1), io);
  if (argv[0] === "verify") return (await import("./attest-verify.js")).attestVerify(argv.slice(1), io);
  return attest(argv, io);
}

/** `attest keygen --out NAME`: NAME.key (PKCS#8 PEM, 0600) and NAME.pub (SPKI PEM), never replacing a file; the keyid on stdout. */
function keygen(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { out: { type: "string" } },
  });
  if (positionals.length > 0 || values.out === undefined || values.out === "")
    throw new UsageError("assay attest keygen takes --out NAME (writes NAME.key and NAME.pub)");
  const keys = generateKeys();
  const write = (file: string, text: string, mode: number) => {
    try {
      writeFileSync(file, text, { mode, flag: "wx" });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === "EEXIST"
          ? `${forTerminal(file)} exists: attest keygen never replaces a key`
          : `cannot write ${forTerminal(file)}: ${(e as Error).message}`,
      );
    }
  };
  write(`${values.out}.key`, keys.privatePem, 0o600);
  try {
    write(`${values.out}.pub`, keys.publicPem, 0o644);
  } catch (e) {
    // NAME.pub was in the way: the key just written would sit beside a public key it does not match.
    unlinkSync(`${values.out}.key`);
    throw e;
  }
  io.stdout(`${keys.keyid}\n`);
  io.stderr(
    `assay attest keygen: wrote ${forTerminal(values.out)}.key (private: keep it so) and ${forTerminal(values.out)}.pub; keyid above\n`,
  );
  return EXIT.OK;
}

/**
 * `attest pubkey --key KEY [--hex]`: the public half of a private key (made by keygen or elsewhere:
 * PKCS#8 PEM, ed25519), as SPKI PEM or as the 64 hex digits securesystemslib's keyval.public holds,
 * on stdout; its keyid on stderr. What to publish for verifiers.
 */
function pubkey(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { key: { type: "string" }, hex: { type: "boolean" } },
  });
  if (positionals.length > 0 || values.key === undefined)
    throw new UsageError("assay attest pubkey takes --key KEY (a private key) [--hex]");
  const pub = createPublicKey(privateKeyFrom(readText(values.key, "--key"), `--key ${forTerminal(values.key)}`));
  io.stdout(values.hex ? `${publicHex(pub)}\n` : (pub.export({ type: "spki", format: "pem" }) as string));
  io.stderr(`assay attest pubkey: keyid ${keyidOf(pub)}\n`);
  return EXIT.OK;
}

/** A results document as attest and verify read it: what the projection needs, and the SHA-256 of its bytes. */
export interface AttestedDocument {
  source: ProjectionSource;
  sha256: string;
  /** Each entry's path and digest, in the document's order (attest verify names an entry missing from a recount by them). */
  entries: { path: string; digest: string }[];
  /** Each experiment's unit values (paired criteria are decided on them), when asked for. */
  units: UnitsOf | undefined;
}

type Kept = Pick<BundleEntry, "digest" | "experiment" | "profile" | "validity" | "errors">;
const NO_ERRORS: Kept["errors"] = Object.freeze([]) as unknown as Kept["errors"];

/**
 * Read RESULTS as merge reads a shard (§8's refusals), keyed when a key is given; a shard or
 * incomplete run is refused. Of each entry only what the projection reads is kept (its digest,
 * experiment, profile, validity and finding codes, the repeated strings shared), its path only
 * when `paths` (verify names entries missing from a recount by them), and its unit values only
 * when `units` (paired criteria).
 */
export function readDocument(
  file: string,
  hmacKeyFile: string | undefined,
  io: CliIo,
  want: { paths?: boolean; units?: boolean } = {},
): AttestedDocument {
  const units = want.units ? new CriteriaUnits() : null;
  const key = hmacKeyFile === undefined ? undefined : readKeyFile(hmacKeyFile, [], io.stderr);
  const hash = createHash("sha256");
  const bundles: Kept[] = [];
  const experiments: Experiment[] = [];
  const entries: AttestedDocument["entries"] = [];
  const strings = new Map<string, string>();
  const shared = <T extends string | null>(s: T): T =>
    s === null ? s : ((strings.get(s) ?? (strings.set(s, s), s)) as T);
  const read = readShard(
    file,
    (e) => {
      if (want.paths) entries.push({ path: e.path, digest: e.digest });
      units?.add(e);
      bundles.push({
        digest: e.digest,
        experiment: shared(e.experiment),
        profile: shared(e.profile),
        validity: e.validity,
        errors:
          e.errors.length === 0
            ? NO_ERRORS
            : e.errors.map((f) => ({ code: shared(f.code), file: null, line: null, message: "" })),
      });
    },
    (x) => experiments.push(x),
    { key: key?.bytes, onBytes: (c) => hash.update(c) },
  );
  if (key !== undefined) {
    checkKeyOf(file, read.run, key.fingerprint);
    checkMacOf(file, read);
  } else if (read.run.options.hmac_key !== null)
    throw new UsageError(
      `${forTerminal(file)} was scored with a key (fingerprint ${read.run.options.hmac_key}): give it with --hmac-key-file, its MAC is checked first`,
    );
  if (read.run.shard !== null)
    throw new UsageError(`${forTerminal(file)} is shard ${read.run.shard} of a run: merge the shards, then attest`);
  if (read.run.options.filters !== null)
    throw new UsageError(
      `${forTerminal(file)} holds the experiments a filter selected (run.options.filters): attest the whole run's document, which a recount can reproduce`,
    );
  if (!read.run.complete)
    throw new UsageError(`${forTerminal(file)} is an incomplete run (stopped): score it to the end, then attest`);
  return {
    source: { format: "assay.results/1", run: read.run, experiments, bundles },
    sha256: hash.digest("hex"),
    entries,
    units: units?.finish(experiments, read.run.options),
  };
}

/** The statement of a document as this assay makes it (attest, and verify's recomputation). */
export function statementOf(doc: AttestedDocument, resultsName: string, attestedAt: string): Statement {
  return projectResults(doc.source, {
    resultsName,
    resultsSha256: doc.sha256,
    merkle: (digests) => evidenceRoot(digests).root,
    harness: { runtime: `node ${process.version}`, digest: { dirHash: packageDirHash() } },
    attestedAt,
  });
}

/** `attest RESULTS --key KEY… [--criteria FILE] [--hmac-key-file F] [--unsigned] [--out FILE]`. */
function attest(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      key: { type: "string", multiple: true },
      criteria: { type: "string" },
      "hmac-key-file": { type: "string" },
      unsigned: { type: "boolean" },
      out: { type: "string" },
    },
  });
  if (positionals.length !== 1)
    throw new UsageError("assay attest takes one RESULTS document (see assay attest --help)");
  const file = positionals[0]!;
  const keys = values.key ?? [];
  if (values.unsigned && keys.length > 0) throw new UsageError("--unsigned writes the statement alone: no --key");
  if (!values.unsigned && keys.length === 0) throw new UsageError("assay attest needs --key KEY (or --unsigned)");
  const out = values.out ?? (values.unsigned ? `${file}.intoto.json` : `${file}.intoto.jsonl`);
  const protect = { files: [file, values.criteria, values["hmac-key-file"], ...keys] };
  if (out !== "-") checkOutput(out, protect);
  const privateKeys = keys.map((k) => privateKeyFrom(readText(k, "--key"), `--key ${forTerminal(k)}`));
  // The criteria first: a file that cannot be used is refused before a large document is read.
  const criteria =
    values.criteria === undefined ? null : parseCriteria(readBytes(values.criteria, "--criteria"), values.criteria);
  const paired = criteria?.rules.some((r) => r.baseline !== undefined) ?? false;
  const doc = readDocument(file, values["hmac-key-file"], io, { units: paired });
  const statement = statementOf(doc, basename(file), new Date().toISOString().replace(/\.\d{3}Z$/, "Z"));
  if (criteria !== null)
    Object.assign(statement.predicate, evaluateCriteria(criteria, statement.predicate.experiments, doc.units));
  const payload = Buffer.from(JSON.stringify(statement), "utf8");
  const text = values.unsigned
    ? `${payload.toString("utf8")}\n`
    : signEnvelope(payload, IN_TOTO_PAYLOAD_TYPE, privateKeys);
  if (out === "-") io.stdout(text);
  else writeOutput(out, text, { protect });
  const rules = statement.predicate.criteria?.rules ?? [];
  const failed = rules.filter((r) => !r.passed).length;
  io.stderr(
    `assay attest: ${out === "-" ? "wrote the statement" : `wrote ${forTerminal(out)}`} (${statement.predicate.experiments.length} experiments, ${statement.predicate.evidence.entries} entries, evidence root ${statement.predicate.evidence.merkleRoot.slice(0, 12)}…${values.unsigned ? ", unsigned" : `, signed by ${privateKeys.map((k) => keyidOf(k).slice(0, 12)).join(", ")}`})${rules.length > 0 ? `; criteria: ${rules.length - failed} of ${rules.length} met` : ""}\n`,
  );
  return EXIT.OK;
}

/** What a key or a criteria file may hold at most: both are a few hundred bytes. */
export const SMALL_INPUT = 1 << 20;

/**
 * A file the user gave, read whole up to `max` bytes (more is refused, whatever the file: its
 * size is read as the bytes come, never taken from it), refused in one line when it cannot be.
 */
export function readBytes(file: string, what: string, max = SMALL_INPUT): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 16, max + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > max) throw new Error(`more than ${max} bytes: not a ${what.replace(/^--/, "")} file assay reads`);
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    throw new UsageError(`${what} ${forTerminal(file)}: ${(e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
export const readText = (file: string, what: string, max = SMALL_INPUT): string =>
  readBytes(file, what, max).toString("utf8");
