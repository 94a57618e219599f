// `assay triage ROOT...` (issue 40 §4): a claims-only pass over an archive too large to verify
// whole. Each thing found whose kind has one (kinds/kind.ts `triage`: an Inspect .eval's
// header.json, reductions.json and summaries.json, never a sample) has every claim those support
// checked, says plainly what they cannot check, and is named for a full `assay verify` when
// anything was found or left unchecked; the rest are named for a full verify as they are.
// A command of its own, not `verify --claims-only`: verify takes one thing and gives every
// finding; triage takes whole archives and gives the short list verify should then be run on.
import type { Found } from "../../io/discover.js";
import { discover } from "../../io/discover.js";
import { forTerminal, plural } from "../../core/text.js";
import type { TriageReport } from "../../kinds/kind.js";
import { kindNamed } from "../../kinds/registry.js";
import { parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

interface Triaged {
  path: string;
  kind: string;
  report: TriageReport | null;
}

const quote = (p: string) => (/^[\w./@+:=-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`);

export function triageCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { json: { type: "boolean" } },
  });
  if (positionals.length === 0) throw new UsageError("assay triage takes one or more roots (folders or Inspect logs)");
  const out: Triaged[] = [];
  /** Things of a kind without a claims-only pass, by the folder that holds them (a job's trials are one line). */
  const untriaged = new Map<string, { kind: string; n: number }>();
  for (const found of discover(positionals, (p, why) => io.stderr(`assay: skipped ${forTerminal(p)}: ${why}\n`))) {
    const triage = kindNamed(found.kind).triage;
    if (triage === undefined) {
      const at = holder(found);
      const u = untriaged.get(at) ?? { kind: found.kind, n: 0 };
      u.n++;
      untriaged.set(at, u);
      continue;
    }
    const report = triage(found);
    out.push({ path: found.path, kind: found.kind, report });
    if (!values.json) io.stdout(render(found.path, report));
  }
  const toVerify = [
    ...out.filter((t) => t.report!.verify.length > 0 && !t.report!.whole).map((t) => t.path),
    ...untriaged.keys(),
  ];
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
    io.stdout(
      toVerify.length === 0
        ? `\nTriage found nothing in ${plural(out.length, "log")}: no full verify is needed for its claims.\n`
        : `\nRun a full verify on ${toVerify.length} of ${out.length + untriaged.size}:\n${toVerify.map((p) => `  assay verify ${quote(p)}\n`).join("")}`,
    );
    if (failed.length > 0)
      io.stdout(
        `Read whole (.json logs: verify's own checks ran) and found something:\n${failed.map((p) => `  ${forTerminal(p)}\n`).join("")}`,
      );
  }
  return toVerify.length + failed.length === 0 ? EXIT.OK : EXIT.FAILED;
}

/** A member's container (a Harbor job, a run) when it has one, else itself. */
const holder = (f: Found): string => f.member?.containerPath ?? f.path;

function render(path: string, r: TriageReport): string {
  const lines = [`${forTerminal(path)}`];
  lines.push(`  read     ${r.read.members.join(", ")} (${(r.read.bytes / 1e6).toFixed(1)} MB)`);
  for (const c of r.claims)
    lines.push(
      `  claim    ${c.name}: claimed ${c.claimed}, ${r.whole ? "samples" : "summaries"} give ${c.recount}: ${c.check}${c.note === null ? "" : ` (${c.note})`}`,
    );
  if (r.claims.length === 0) lines.push("  claim    none (no metric in its results)");
  for (const f of r.findings.slice(0, 10))
    lines.push(`  finding  ${f.code}${f.file === null ? "" : ` ${f.file}`}: ${f.message}`);
  if (r.findings.length > 10) lines.push(`  finding  … ${r.findings.length - 10} more (assay verify lists them all)`);
  lines.push(
    r.verify.length === 0
      ? "  verify   not needed for its claims"
      : `  verify   ${r.whole ? "(read whole: this was verify's reading)" : "yes"}: ${r.verify.join("; ")}`,
  );
  return lines.join("\n") + "\n";
}
