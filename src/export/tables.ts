// The export's three tables (issue 40 §2, docs/export.md): their columns, types and meaning, in
// one place, from which the CREATE statements are made (and against which the page's table is
// checked by the tests).

export type ColumnType = "VARCHAR" | "INTEGER" | "DOUBLE" | "BOOLEAN" | "JSON" | "MAP(VARCHAR, DOUBLE)";
export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly doc: string;
}
const col = (name: string, type: ColumnType, doc: string): Column => ({ name, type, doc });

/** What the run identity gives every unit and entry. */
const IDENTITY = [
  col("document", "VARCHAR", "the results document the row comes from, as given to `assay export`"),
  col("experiment", "VARCHAR", "the experiment (run) as the document names it"),
  col("agent", "VARCHAR", "the agent, where the evidence records it"),
  col("model", "VARCHAR", "the model, where the evidence records it"),
  col("benchmark", "VARCHAR", "the benchmark, where the evidence records it"),
  col("task", "VARCHAR", "the task (Harbor, Terminal-Bench, SWE-bench: per trial; Inspect: the log's task)"),
];
const USAGE = [
  col("input_tokens", "DOUBLE", "tokens in, as the evidence records them (never estimated)"),
  col("output_tokens", "DOUBLE", "tokens out"),
  col("cache_read_tokens", "DOUBLE", "tokens read from a cache"),
  col("cost_usd", "DOUBLE", "dollars, as the evidence records them"),
];

export const UNITS: readonly Column[] = [
  col(
    "unit_id",
    "VARCHAR",
    "unique in the document: the entry's path, then `#` sample id `@` epoch for an Inspect sample",
  ),
  col("entry", "VARCHAR", "the entry the unit belongs to (`entries.path`)"),
  col("kind", "VARCHAR", "the archive kind: bundle, harbor, inspect, terminal-bench, swe-bench"),
  col("profile", "VARCHAR", "the entry's profile (native-game, world, harbor, inspect, terminal-bench, swe-bench)"),
  ...IDENTITY,
  col("unit", "VARCHAR", "the unit's name: the trial, the Inspect sample id, the SWE-bench instance id"),
  col("epoch", "INTEGER", "the Inspect epoch (null elsewhere)"),
  col("attempt", "INTEGER", "the bundle's attempt (null elsewhere)"),
  col(
    "state",
    "VARCHAR",
    "what the unit came to in its kind's words (a Harbor state, an Inspect sample state, a bundle's status)",
  ),
  col("validity", "VARCHAR", "the entry's validity: valid, invalid or error"),
  col(
    "scores",
    "MAP(VARCHAR, DOUBLE)",
    "each metric's value: `scores['reward']`, `scores['match']`, `scores['victory']` (null: unscored)",
  ),
  ...USAGE,
  col("evidence", "VARCHAR", "the trial's folder or the log's file, as the document names it"),
  col(
    "evidence_file",
    "VARCHAR",
    "the file to open first: `agent/trajectory.json` in a Harbor trial, `panes/post-test.txt` in a Terminal-Bench trial, the sample's member in a `.eval`",
  ),
  col(
    "open_command",
    "VARCHAR",
    "the command that opens the evidence in its harness's viewer (`inspect view --log-dir …`)",
  ),
  col(
    "open_url",
    "VARCHAR",
    "where that viewer shows this unit once `open_command` runs: an Inspect sample's address in `inspect view` (`http://127.0.0.1:7575/#/logs/<log>/samples/sample/<id>/<epoch>`)",
  ),
  col("detail", "VARCHAR", "an Inspect sample's error or limit, or why a log's samples could not be read"),
];

export const ENTRIES: readonly Column[] = [
  col("path", "VARCHAR", "the entry's path (a bundle, a trial, an instance folder, a log)"),
  col("kind", "VARCHAR", "the archive kind"),
  col("profile", "VARCHAR", "the entry's profile"),
  ...IDENTITY,
  col("trial", "VARCHAR", "the trial (null for an Inspect log)"),
  col("attempt", "INTEGER", "the bundle's attempt"),
  col("validity", "VARCHAR", "valid, invalid or error"),
  col("state", "VARCHAR", "the entry's state (Harbor, Inspect, Terminal-Bench, SWE-bench)"),
  col("status", "VARCHAR", "the entry's status (bundles, Inspect)"),
  col("codes", "VARCHAR", "its errors' and warnings' codes, space-separated"),
  col("flags", "VARCHAR", "its review flags' codes, space-separated"),
  ...USAGE,
  col("digest", "VARCHAR", "the evidence's SHA-256 digest"),
  col("json", "JSON", "the entry as the document has it (every field)"),
];

export const EXPERIMENTS: readonly Column[] = [
  col("document", "VARCHAR", "the results document"),
  col("experiment", "VARCHAR", "its name"),
  col("profile", "VARCHAR", "its entries' profile"),
  col("scheduled", "INTEGER", "its planned units, where the document says"),
  col("json", "JSON", "the experiment as the document has it (figures, intervals, claims, usage)"),
];

export const TABLES = { units: UNITS, entries: ENTRIES, experiments: EXPERIMENTS } as const;
export type TableName = keyof typeof TABLES;

/** The CREATE statement of a table, under another name and with its maps as JSON where asked (a staging table: see write.ts). */
export const createTable = (name: TableName, o: { as?: string; mapsAsJson?: boolean } = {}): string =>
  `CREATE TABLE ${o.as ?? name} (${TABLES[name]
    .map((c) => `${c.name} ${o.mapsAsJson && c.type.startsWith("MAP") ? "JSON" : c.type}`)
    .join(", ")})`;
