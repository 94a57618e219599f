import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { AnalysisCache, CacheError } from "../../analysis/cache.js";
import { PRICES_AS_OF } from "../../analysis/prices.js";
import { scrubDeep, secretScrubber } from "../../analysis/secrets.js";
import { checkOutput, gathered, withSqliteFiles, writeOutput } from "../../io/output.js";
import { forTerminal } from "../../core/text.js";
import { didYouMean, parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";

const file = (cache: string | undefined, env: Record<string, string | undefined>) =>
  resolve(cache ?? env["ASSAY_CACHE"] ?? "cache/assay.sqlite");

/**
 * The cache a subcommand works on, which must exist and be one: a mistyped --cache is an error,
 * never "0 answers" (and prune never creates a cache to prune). Only stats reads an absent
 * default cache, as empty.
 */
function existing(path: string, readOnly: boolean): AnalysisCache {
  if (!existsSync(path)) throw new UsageError(`no analysis cache at ${path} (--cache FILE or ASSAY_CACHE names it)`);
  const cache = new AnalysisCache(path, readOnly);
  if (!cache.holdsAnswers) {
    cache.close();
    throw new CacheError(`${path} is not an analysis cache`);
  }
  return cache;
}

export function cacheCommand(argv: string[], io: CliIo): number {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      cache: { type: "string" },
      json: { type: "boolean" },
      "older-than": { type: "string" },
      model: { type: "string" },
    },
  });
  const path = file(values.cache, io.env);
  if (sub === "stats") {
    // No cache at the default place yet (a fresh checkout, offline) is an empty one, not an error
    // (read-only: nothing is created); a cache named by --cache or ASSAY_CACHE must exist (a typo).
    const absent = values.cache === undefined && io.env["ASSAY_CACHE"] === undefined && !existsSync(path);
    const cache = absent ? new AnalysisCache(path, true) : existing(path, true);
    try {
      const s = cache.stats();
      if (values.json) io.stdout(JSON.stringify({ file: path, ...s }, null, 2) + "\n");
      else {
        const lines = [
          absent
            ? `${forTerminal(path)}: empty (no cache yet: analyze, check-task and narrate make it)`
            : `${forTerminal(path)}: ${s.rows} answers, ${(s.bytes / 1e6).toFixed(1)} MB${s.oldest ? `, made ${s.oldest} … ${s.newest}` : ""}`,
        ];
        for (const g of s.byAnalysis) lines.push(`  ${g.analysis.padEnd(18)} ${g.model.padEnd(28)} ${g.rows}`);
        const r = s.lastRun;
        if (r) {
          const seen = r.hits + r.asked;
          lines.push(
            `last run (${r.command}, ${r.finished_at}): hit rate ${seen ? ((100 * r.hits) / seen).toFixed(1) : "n/a"}% (${r.hits} from the cache, ${r.asked} asked, ${r.errors} errors, ${r.not_analysed} not analysed); ` +
              `cost ${r.cost_usd.toFixed(4)} USD, saved ${r.saved_usd.toFixed(4)} USD (list prices as of ${PRICES_AS_OF}; unknown prices count 0)`,
          );
        } else lines.push("no run recorded yet");
        io.stdout(lines.join("\n") + "\n");
      }
    } finally {
      cache.close();
    }
    return EXIT.OK;
  }
  if (sub === "prune") {
    const d = values["older-than"];
    const m = d === undefined ? null : /^(\d{1,6})(d|h|m)$/.exec(d);
    if (m === null || (m[2] === "d" && Number(m[1]) > 36_500))
      throw new UsageError(
        "assay cache prune needs --older-than D (a number with d, h or m: 30d, 12h, 90m; at most a century)",
      );
    const ms = Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as "d" | "h" | "m"];
    const cache = existing(path, false);
    try {
      const n = cache.prune(new Date(Date.now() - ms).toISOString(), values.model);
      io.stdout(`pruned ${n} answers made before ${d} ago${values.model ? ` by ${values.model}` : ""} from ${path}\n`);
    } finally {
      cache.close();
    }
    return EXIT.OK;
  }
  if (sub === "export") {
    if (positionals.length !== 1) throw new UsageError("assay cache export takes one FILE");
    const out = positionals[0]!;
    const toStdout = out === "-"; // as --out - elsewhere
    const protect = { files: withSqliteFiles(path) }; // `export X --cache X` would destroy the paid answers
    if (!toStdout) checkOutput(out, protect);
    const cache = existing(path, true);
    // Rows written by an older assay may hold what the endpoint echoed: scrubbed on the way out too.
    const scrub = secretScrubber(io.env);
    let n = 0;
    const lines = (function* () {
      for (const row of cache.rows()) {
        n++;
        yield JSON.stringify(scrubDeep(row, scrub)) + "\n";
      }
    })();
    try {
      if (toStdout) for (const piece of gathered(lines)) io.stdout(piece);
      else writeOutput(out, lines, { protect });
    } finally {
      cache.close();
    }
    io.stderr(`assay cache: exported ${n} answers to ${toStdout ? "standard output" : forTerminal(out)}\n`);
    return EXIT.OK;
  }
  const subs = ["stats", "prune", "export"];
  if (sub === undefined) throw new UsageError(`needs a subcommand: ${subs.join(", ")} (see assay cache --help)`);
  throw new UsageError(
    `unknown subcommand ${JSON.stringify(sub)}${didYouMean(sub, subs)} (${subs.join(", ")}; see assay cache --help)`,
  );
}
