// `assay attest verify STATEMENT --key PUB… [--threshold N] [--results DOC] [--criteria FILE]
// [ROOT… --schedule F… --hmac-key-file F] [--format json]` (contract §15.1, §15.6): the signature
// over the envelope, then the statement against the document given and, with ROOT…, against a
// recount of the evidence under the statement's options. Every check runs; each failure a code.
import { basename } from "node:path";
import { ATTEST_WARNINGS, type AttestFailure } from "../../core/attest/codes.js";
import { hasPairedRules } from "../../core/attest/paired.js";
import { compareStatements } from "../../core/attest/compare.js";
import { parseCriteria, type Criteria } from "../../core/attest/criteria.js";
import { decodeEnvelope, IN_TOTO_PAYLOAD_TYPE, verifyAny, type Envelope } from "../../core/attest/dsse.js";
import { publicKeyFrom } from "../../core/attest/keys.js";
import { readStatement } from "../../core/attest/statement-schema.js";
import type { Statement } from "../../core/attest/statement.js";
import { parseStrictJson } from "../../core/json/strict.js";
import { forTerminal, terminalText } from "../../core/text.js";
import { parseOptions, positiveInt } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { readBytes, readDocument, readText, statementOf, type AttestedDocument } from "./attest.js";
import { recount } from "./attest-recount.js";

const OPTIONS = {
  key: { type: "string", multiple: true },
  threshold: { type: "string" },
  results: { type: "string" },
  criteria: { type: "string" },
  schedule: { type: "string", multiple: true },
  "hmac-key-file": { type: "string" },
  dataset: { type: "string" },
  format: { type: "string" },
} as const;

export async function attestVerify(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({ args: argv, allowPositionals: true, options: OPTIONS });
  const [file, ...roots] = positionals;
  if (file === undefined) throw new UsageError("assay attest verify takes a STATEMENT (see assay attest --help)");
  const keys = (values.key ?? []).map((k) => publicKeyFrom(readText(k, "--key"), `--key ${forTerminal(k)}`));
  if (keys.length === 0) throw new UsageError("assay attest verify needs --key PUB (the signer's public key)");
  const threshold = positiveInt("threshold", values.threshold, 1);
  if (threshold > keys.length) throw new UsageError(`--threshold ${threshold}: only ${keys.length} keys given`);
  if (values.format !== undefined && values.format !== "json" && values.format !== "table")
    throw new UsageError("--format takes json (or table, the default)");
  if (roots.length === 0 && (values.schedule !== undefined || values["hmac-key-file"] !== undefined) && !values.results)
    throw new UsageError("--schedule and --hmac-key-file go with ROOT… (a recount) or --results");

  const envelopes = envelopesIn(file);
  const failures: AttestFailure[] = [...envelopes.malformed];
  const criteria: Criteria | null =
    values.criteria === undefined ? null : parseCriteria(readBytes(values.criteria, "--criteria"), values.criteria);
  const doc =
    values.results === undefined
      ? null
      : readDocument(values.results, values["hmac-key-file"], io, {
          paths: roots.length > 0,
          units: envelopes.found.some((e) => hasPairedRules(statementIn(e))),
        });
  for (const [i, env] of envelopes.found.entries()) {
    const at = envelopes.found.length > 1 ? `envelope ${i + 1}: ` : "";
    const mine = await checkEnvelope(env, {
      keys,
      threshold,
      criteria,
      doc,
      resultsName: values.results,
      roots,
      values,
      io,
    });
    failures.push(...mine.map((f) => ({ ...f, where: `${at}${f.where}` })));
  }
  return report(failures, values.format === "json", io);
}

/** The envelope's payload read as a Statement, or why it is none (ENVELOPE_MALFORMED, STATEMENT_MALFORMED). */
function payloadStatement(env: Envelope): { statement: Statement } | { failures: AttestFailure[] } {
  const parsed = parseStrictJson(env.payload.toString("utf8"), " ");
  if (!parsed.ok) return { failures: [{ code: "ENVELOPE_MALFORMED", where: "payload", detail: parsed.issue.message }] };
  return readStatement(parsed.value);
}

/** The envelope's statement, or null where it is none (checkEnvelope says why). */
function statementIn(env: Envelope): Statement | null {
  const read = payloadStatement(env);
  return "failures" in read ? null : read.statement;
}

/** A statement file's bound: a statement holds a few KB per experiment, so this is far beyond an honest one. */
const STATEMENT_MAX = 256 << 20;

/** The bundle's envelopes of in-toto's type; other lines are ignored (in-toto's bundle rules); none: exit 2. */
function envelopesIn(file: string): { found: Envelope[]; malformed: AttestFailure[] } {
  const text = readText(file, "STATEMENT", STATEMENT_MAX);
  const found: Envelope[] = [];
  const malformed: AttestFailure[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const d = decodeEnvelope(line);
    if (d.ok) {
      if (d.envelope.payloadType === IN_TOTO_PAYLOAD_TYPE) found.push(d.envelope);
    } else if (d.payloadType === IN_TOTO_PAYLOAD_TYPE)
      malformed.push({ code: "ENVELOPE_MALFORMED", where: `${basename(file)} line ${i + 1}`, detail: d.reason });
  });
  if (found.length === 0 && malformed.length === 0)
    throw new UsageError(`${forTerminal(file)} holds no DSSE envelope of type ${IN_TOTO_PAYLOAD_TYPE}`);
  return { found, malformed };
}

interface Check {
  keys: ReturnType<typeof publicKeyFrom>[];
  threshold: number;
  criteria: Criteria | null;
  doc: AttestedDocument | null;
  resultsName: string | undefined;
  roots: string[];
  values: { schedule?: string[] | undefined; "hmac-key-file"?: string | undefined; dataset?: string | undefined };
  io: CliIo;
}

async function checkEnvelope(env: Envelope, c: Check): Promise<AttestFailure[]> {
  const out: AttestFailure[] = [];
  const signed = verifyAny(env, c.keys, c.threshold);
  if (!signed.ok)
    out.push({
      code: "SIGNATURE_INVALID",
      where: "signatures",
      detail: `${signed.verified.length} of the ${c.keys.length} keys given verify the envelope; ${c.threshold} needed`,
    });
  const read = payloadStatement(env);
  if ("failures" in read) return [...out, ...read.failures];
  const attested: Statement = read.statement;
  if (c.doc !== null) {
    const mine = statementOf(c.doc, basename(c.resultsName!), attested.predicate.attestedAt);
    out.push(
      ...compareStatements(attested, mine, {
        recount: false,
        criteria: c.criteria,
        documentSha256: c.doc.sha256,
        units: c.doc.units,
      }),
    );
  } else if (c.criteria !== null) out.push(...criteriaOnly(attested, c.criteria));
  if (c.roots.length > 0) out.push(...(await recount(attested, c.roots, c.values, c.doc, c.criteria, c.io)));
  return out;
}

/** Without a document or a recount: the criteria file against the statement's record of it. */
function criteriaOnly(attested: Statement, criteria: Criteria): AttestFailure[] {
  const recorded = attested.predicate.criteria?.digest.sha256;
  return recorded === criteria.sha256
    ? []
    : [
        {
          code: "CRITERIA_MISMATCH",
          where: "criteria.digest",
          detail: `the statement records ${recorded ?? "no criteria"}, the file given is ${criteria.sha256}`,
        },
      ];
}

function report(failures: readonly AttestFailure[], json: boolean, io: CliIo): number {
  const failed = failures.filter((f) => !ATTEST_WARNINGS.has(f.code));
  if (json)
    io.stdout(
      `${JSON.stringify({ format: "assay.attest-verify/1", verified: failed.length === 0, failures }, null, 2)}\n`,
    );
  else {
    for (const f of failures) io.stdout(`${f.code} ${terminalText(f.where)}: ${terminalText(f.detail)}\n`);
    io.stdout(failed.length === 0 ? "verified\n" : `not verified: ${failed.length} failures\n`);
  }
  return failed.length === 0 ? EXIT.OK : EXIT.FAILED;
}
