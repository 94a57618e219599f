// JSON Lines, for data tools (DuckDB read_json, Polars, Spark, jq -c): the run first, then one
// bundle entry per line in path order, then one line per experiment. Each line says what it is in
// its `type` ("run", "bundle", "experiment"); the fields beside it are the JSON document's. The
// run line also says how many lines of each kind follow (`lines`): JSON Lines has no closing
// bracket, so a document cut at a line end would otherwise read as a smaller, complete one.
import type { ResultsView } from "../core/results.js";

export function* render(doc: ResultsView): Generator<string> {
  const lines = { bundles: doc.tally.bundles, experiments: doc.experiments.length };
  yield `${JSON.stringify({ type: "run", format: doc.format, run: doc.run, lines })}\n`;
  for (const e of doc.bundles) yield `${JSON.stringify({ type: "bundle", ...e })}\n`;
  for (const e of doc.experiments) yield `${JSON.stringify({ type: "experiment", ...e })}\n`;
}
