// JSON Lines, for data tools (DuckDB read_json, Polars, Spark, jq -c): the run first, then one
// bundle entry per line in path order, then one line per experiment. Each line says what it is in
// its `type` ("run", "bundle", "experiment"); the fields beside it are the JSON document's. The
// run line also says how many lines of each kind follow (`lines`): JSON Lines has no closing
// bracket, so a document cut at a line end would otherwise read as a smaller, complete one.
// A document written with a key ends with one more line, its MAC ({"type":"mac","alg":…,"value":…};
// core/results.ts DocumentMac), which `lines` does not count.
import { DocumentMac, type ResultsView } from "../core/results.js";
import type { RenderOptions } from "./json.js";

export function* render(doc: ResultsView, o: RenderOptions = {}): Generator<string> {
  const sink = o.macKey === undefined ? undefined : new DocumentMac(o.macKey);
  sink?.setRun(doc.run);
  const lines = { bundles: doc.tally.bundles, experiments: doc.experiments.length };
  yield `${JSON.stringify({ type: "run", format: doc.format, run: doc.run, lines })}\n`;
  for (const e of doc.bundles) {
    const line = JSON.stringify({ type: "bundle", ...e });
    sink?.add("bundles", line);
    yield `${line}\n`;
  }
  for (const e of doc.experiments) {
    const line = JSON.stringify({ type: "experiment", ...e });
    sink?.add("experiments", line);
    yield `${line}\n`;
  }
  if (sink !== undefined) yield `${JSON.stringify({ type: "mac", alg: "HMAC-SHA256", value: sink.digest() })}\n`;
}
