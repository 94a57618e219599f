import { createHash } from "node:crypto";
import { narrate, NarrativeGatherer, narrativeMarkdown, type Narrative } from "../../analysis/narrative.js";
import { setupModel } from "../../analysis/setup.js";
import { checkOutput, gathered, withSqliteFiles, writeOutput, type Protected } from "../../io/output.js";
import { checkKeyOf, checkMacOf, readShard } from "../../io/shard-reader.js";
import { pieces } from "../../report/json.js";
import { oneOf, parseOptions } from "../args.js";
import { EXIT, UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { MODEL_OPTIONS, modelOptions } from "./analysis-options.js";
import { readKeyFile } from "./seal.js";

function* jsonOf(n: Narrative): Generator<string> {
  yield* pieces(n, 0);
  yield "\n";
}

export async function narrateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: {
      ...MODEL_OPTIONS,
      out: { type: "string" },
      format: { type: "string" },
      "hmac-key-file": { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError("assay narrate takes one RESULTS.json");
  const format = oneOf("format", values.format, ["md", "json"], "md");
  // The document read, the prompt, and the cache (known once set up, below) are never written over.
  const keyFile = values["hmac-key-file"];
  const protect = (cache?: string): Protected => ({
    files: [positionals[0], values.prompt, keyFile, ...withSqliteFiles(cache)],
  });
  // Streamed, an entry at a time (a JSON or JSON Lines document of any size), digested as read;
  // with a key, it must have been scored with that key and carry the MAC the key gives it.
  const key = keyFile === undefined ? undefined : readKeyFile(keyFile, [], io.stderr);
  const gatherer = new NarrativeGatherer();
  const digest = createHash("sha256");
  const file = positionals[0]!;
  const read = readShard(
    file,
    (e) => gatherer.entry(e),
    (x) => gatherer.experiment(x),
    {
      onBytes: (c) => digest.update(c),
      key: key?.bytes,
    },
  );
  if (key !== undefined) {
    checkKeyOf(file, read.run, key.fingerprint);
    checkMacOf(file, read);
  }
  const input = gatherer.finish(digest.digest("hex"));
  const { setup: options, prices } = modelOptions(values);
  const setup = setupModel("narrative", options, io.env);
  try {
    if (values.out !== undefined) checkOutput(values.out, protect(setup.cache.file)); // before any model call
    if (setup.offlineBecause)
      io.stderr(`assay narrate: offline (${setup.offlineBecause}): prose comes from the cache only\n`);
    const n = await narrate(input, {
      cache: setup.cache,
      backend: setup.backend,
      model: setup.model,
      template: setup.template,
      prices,
    });
    // JSON in pieces: a run of a million trials without an analysis lists them all.
    const text = format === "json" ? gathered(jsonOf(n)) : [narrativeMarkdown(n)];
    if (values.out !== undefined) writeOutput(values.out, text, { protect: protect(setup.cache.file) });
    else for (const piece of text) io.stdout(piece);
    if (n.status !== "written") io.stderr(`assay narrate: no prose: ${n.reason}\n`);
    return n.status === "written" ? EXIT.OK : EXIT.INCOMPLETE;
  } finally {
    setup.cache.close();
  }
}
