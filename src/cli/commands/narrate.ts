import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { narrate, narrativeMarkdown } from "../../analysis/narrative.js";
import { setupModel } from "../../analysis/setup.js";
import { resultsSchema } from "../../core/results.js";
import { checkOutput, withSqliteFiles, writeOutput, type Protected } from "../../io/output.js";
import { oneOf, usage } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { MODEL_OPTIONS, modelOptions } from "./analysis-options.js";


export async function narrateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = usage(() =>
    parseArgs({ args: argv, allowPositionals: true, options: { ...MODEL_OPTIONS, out: { type: "string" }, format: { type: "string" } } }),
  );
  if (positionals.length !== 1) throw new UsageError("assay narrate takes one RESULTS.json");
  const format = oneOf("format", values.format, ["md", "json"], "md");
  // The document read, the prompt, and the cache (known once set up, below) are never written over.
  const protect = (cache?: string): Protected => ({ files: [positionals[0], values.prompt, ...withSqliteFiles(cache)] });
  const bytes = readFileSync(positionals[0]!);
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new UsageError(`${positionals[0]} is not JSON (assay score --format json writes the document)`);
  }
  const results = resultsSchema.safeParse(doc);
  if (!results.success) throw new UsageError(`${positionals[0]} is not an assay results document: ${results.error.issues[0]?.path.join(".")}: ${results.error.issues[0]?.message}`);
  const { setup: options, prices } = modelOptions(values);
  const setup = setupModel("narrative", options, io.env);
  try {
    if (values.out !== undefined) checkOutput(values.out, protect(setup.cache.file)); // before any model call
    if (setup.offlineBecause) io.stderr(`assay narrate: offline (${setup.offlineBecause}): prose comes from the cache only\n`);
    const n = await narrate(results.data, bytes, { cache: setup.cache, backend: setup.backend, model: setup.model, template: setup.template, prices });
    const text = format === "json" ? JSON.stringify(n, null, 2) + "\n" : narrativeMarkdown(n);
    if (values.out !== undefined) writeOutput(values.out, text, { protect: protect(setup.cache.file) });
    else io.stdout(text);
    if (n.status !== "written") io.stderr(`assay narrate: no prose: ${n.reason}\n`);
    return n.status === "written" ? EXIT.OK : EXIT.INCOMPLETE;
  } finally {
    setup.cache.close();
  }
}
