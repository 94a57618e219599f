// `assay triage ROOT...` (issue 40 §4): a claims-only pass over an archive too large to verify
// whole. Each thing found whose kind has one (kinds/kind.ts `triage`: an Inspect .eval's
// header.json, reductions.json and summaries.json, never a sample) has every claim those support
// checked, says plainly what they cannot check, and is named for a full `assay verify` when
// anything was found or left unchecked; the rest are named for a full verify as they are.
// A command of its own, not `verify --claims-only`: verify takes one thing and gives every
// finding; triage takes whole archives and gives the short list verify should then be run on.
import type { Found, FoundContainer } from "../../io/discover.js";
import { DEFAULT_BATCH } from "../../core/batch/experiments.js";
import { discover, displayRoot } from "../../io/discover.js";
import { forTerminal, plural } from "../../core/text.js";
import type { TriageReport } from "../../kinds/kind.js";
import { kindNamed } from "../../kinds/registry.js";
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

/** One log's time limit by default: verify's (VERIFY_TIMEOUT_S, not imported: triage never loads verify). */
const TRIAGE_TIMEOUT_S = 60;

interface Triaged {
  path: string;
  kind: string;
  report: TriageReport | null;
}

const quote = (p: string) => (/^[\w./@+:=-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`);

export async function triageCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { json: { type: "boolean" }, "bundle-timeout": { type: "string" } },
  });
  if (positionals.length === 0) throw new UsageError("takes one or more roots (folders or Inspect logs)");
  // One log's triage may take this long (verify's default): past it the log is named for a full verify, the batch goes on.
  const timeoutS = values["bundle-timeout"] === undefined ? TRIAGE_TIMEOUT_S : Number(values["bundle-timeout"]);
  if (!(timeoutS > 0 && timeoutS <= 86_400))
    throw new UsageError("--bundle-timeout takes a number of seconds above 0 and at most 86400 (a day)");
  const out: Triaged[] = [];
  /** Things of a kind without a claims-only pass, by the folder that holds them (a job's trials are one line). */
  const untriaged = new Map<string, { kind: string; n: number }>();
  /** Containers (a Harbor job, a Terminal-Bench run, a SWE-bench model folder) by results path: where they lie. */
  const containers = new Map<string, string>();
  const hooks = {
    onContainer: (c: FoundContainer) => void (c.partial || containers.set(c.path, c.dir)),
    allowEmpty: true, // said below, once for all the roots
  };
  const skip = (p: string, why: string) => io.stderr(`assay: skipped ${forTerminal(p)}: ${why}\n`);
  for (const found of discover(positionals, skip, hooks)) {
    const triage = kindNamed(found.kind).triage;
    if (triage === undefined) {
      const at = holder(found, positionals);
      const u = untriaged.get(at) ?? { kind: found.kind, n: 0 };
      u.n++;
      untriaged.set(at, u);
      continue;
    }
    const report = await triedOn(found, (f) => triage(f, timeoutS * 1000));
    out.push({ path: found.path, kind: found.kind, report });
    if (!values.json) io.stdout(render(found.path, report));
  }
  if (out.length + untriaged.size === 0)
    throw new UsageError(
      `nothing under ${positionals.map(forTerminal).join(", ")} is an Inspect log or anything else assay reads`,
    );
  // A container's claims are its own summary (a Harbor job's result.json): checked against its
  // members as score checks them (a member's evidence is a few small files: nothing cheaper to read).
  for (const [path, u] of untriaged) {
    const dir = containers.get(path);
    if (dir === undefined) continue;
    const report = await containerClaims(dir, path);
    if (report === null) continue;
    untriaged.delete(path);
    out.push({ path, kind: u.kind, report });
    if (!values.json) io.stdout(render(path, report));
  }
  const toVerify = [
    ...out.filter((t) => t.report!.verify.length > 0 && !t.report!.whole).map((t) => t.path),
    ...untriaged.keys(),
  ];
  // Several things under one root, none of them a container's: the command that verifies them all.
  const command = (p: string): string => {
    const u = untriaged.get(p);
    return u === undefined || u.n === 1
      ? `assay verify ${quote(p)}`
      : `assay score ${quote(p)} --format json   # ${plural(u.n, `${u.kind} unit`)}: each verified as verify does`;
  };
  const failed = out.filter((t) => t.report!.whole && t.report!.verify.length > 0).map((t) => t.path);
  if (values.json) {
    io.stdout(
      JSON.stringify(
        {
          triaged: out.map((t) => ({ path: t.path, kind: t.kind, ...t.report })),
          not_triaged: [...untriaged].map(([path, u]) => ({ path, kind: u.kind, units: u.n })),
          verify: toVerify,
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    const unchecked = new Set(out.flatMap((t) => t.report!.unchecked));
    if (unchecked.size > 0)
      io.stdout(
        `\nWhat triage cannot check (only the samples hold it; a full verify reads them):\n${[...unchecked].map((u) => `  - ${u}\n`).join("")}`,
      );
    for (const [path, u] of untriaged)
      io.stdout(`\n${forTerminal(path)}: ${plural(u.n, `${u.kind} unit`)} of a kind without a claims-only pass`);
    if (untriaged.size > 0) io.stdout("\n");
    if (toVerify.length + failed.length === 0)
      io.stdout(
        `\nTriage found nothing in the ${plural(out.length, "log or container", "logs and containers")} it checked: their claims follow from what it read. A log's samples were not read (what only they hold is listed above): a full verify is what checks them.\n`,
      );
    if (toVerify.length > 0)
      io.stdout(
        `\nRun a full verify on ${toVerify.length} of ${out.length + untriaged.size}:\n${toVerify.map((p) => `  ${command(p)}\n`).join("")}`,
      );
    if (failed.length > 0)
      io.stdout(
        `\nRead whole (verify's own reading: .json logs, containers' claims) and found something:\n${failed.map((p) => `  ${forTerminal(p)}\n`).join("")}`,
      );
  }
  return toVerify.length + failed.length === 0 ? EXIT.OK : EXIT.FAILED;
}

/**
 * One thing's triage, or, where its file cannot be read now (gone or unreadable since discovery:
 * an error of the file system, with its code), a report naming it for a full verify: one log
 * never ends the command. Anything else is assay's own error and is not hidden.
 */
export async function triedOn(found: Found, triage: (f: Found) => Promise<TriageReport>): Promise<TriageReport> {
  try {
    return await triage(found);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (!(e instanceof Error) || typeof code !== "string" || !/^E[A-Z]+$/.test(code)) throw e;
    return {
      claims: [],
      findings: [],
      unchecked: [],
      verify: [`could not be read (${code}: ${e.message})`],
      read: { members: [], bytes: 0 },
      whole: false,
      from: "nothing",
    };
  }
}

/** A member's container (a Harbor job, a run) when it has one, else the root it was found under. */
function holder(f: Found, roots: readonly string[]): string {
  if (f.member?.containerPath !== undefined) return f.member.containerPath;
  const root = roots.map(displayRoot).find((r) => f.path === r || f.path.startsWith(`${r}/`));
  return root ?? f.path;
}

function render(path: string, r: TriageReport): string {
  const lines = [`${forTerminal(path)}`];
  lines.push(`  read     ${r.read.members.join(", ")} (${(r.read.bytes / 1e6).toFixed(1)} MB)`);
  for (const c of r.claims)
    lines.push(
      `  claim    ${c.name}: claimed ${c.claimed}, ${r.from === "members" ? "members give" : `Inspect's rules over the ${r.from} give`} ${c.recount}: ${c.check}${c.note === null ? "" : ` (${c.note})`}`,
    );
  if (r.claims.length === 0) lines.push("  claim    none (no metric in its results)");
  for (const f of r.findings.slice(0, 10))
    lines.push(`  finding  ${f.code}${f.file === null ? "" : ` ${f.file}`}: ${f.message}`);
  if (r.findings.length > 10) lines.push(`  finding  … ${r.findings.length - 10} more (assay verify lists them all)`);
  lines.push(
    r.verify.length === 0
      ? "  verify   not needed for its claims as what it read gives them"
      : `  verify   ${r.whole ? "(read whole: this was verify's reading)" : "yes"}: ${r.verify.join("; ")}`,
  );
  return lines.join("\n") + "\n";
}

/**
 * A container's own claims beside its members' recount, as `score` gives them (the experiments'
 * `claimed.compared`), or null when it claims nothing assay compares.
 */
async function containerClaims(dir: string, path: string): Promise<TriageReport | null> {
  const { scoreRoots } = await import("../../pipeline/score.js");
  const results = await scoreRoots([dir], { schedules: [], ...DEFAULT_BATCH });
  const claimed = results.experiments.filter((e) => e.claimed !== null);
  if (claimed.length === 0) return null;
  const claims = claimed.flatMap((e) =>
    e.claimed!.compared.map((c) => ({
      name: `${e.experiment ?? path}: ${c.metric}`,
      claimed: String(c.claimed),
      recount: c.assay === null ? "none" : String(Number(c.assay.toFixed(4))),
      check:
        c.assay === null ? ("unverified" as const) : c.reason === null ? ("agrees" as const) : ("mismatch" as const),
      note: c.reason,
    })),
  );
  const bad = results.bundles.filter((b) => b.validity !== "valid");
  const flags = claimed.flatMap((e) => e.flags.map((f) => f.code));
  const verify = [
    ...(claims.some((c) => c.check !== "agrees")
      ? [`${claims.filter((c) => c.check !== "agrees").length} claim(s) differ or unverified`]
      : []),
    ...(bad.length > 0 ? [`${bad.length} member(s) not valid`] : []),
    ...[...new Set(flags)].map((c) => `flag ${c}`),
  ];
  return {
    claims,
    findings: bad.slice(0, 20).map((b) => ({
      code: b.errors[0]?.code ?? b.validity,
      file: b.path,
      message: b.errors[0]?.message ?? b.validity,
    })),
    unchecked: [],
    verify,
    read: { members: [`its summary and ${results.bundles.length} member(s), as score reads them`], bytes: 0 },
    whole: true,
    from: "members",
  };
}
