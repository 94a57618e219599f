import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { forTerminal, terminalText } from "../../core/text.js";
import { writeCorpus, writeKindCorpus } from "../../io/corpus.js";
import { isEmptyOrAbsent, writeTree } from "../../io/output.js";
import { listedSynths } from "../../kinds/list.js";
import { DEMO_FOLDERS, DEMO_JOB, DEMO_TASKS_HOLD, demoFiles, withDemo } from "../../synth/demo.js";
import { INSPECT_CASES } from "../../synth/inspect.js";
import { NATIVE_FAULTS } from "../../synth/native.js";
import { readyZstd } from "../../synth/zip.js";
import { WORLD_SCENARIOS } from "../../synth/world.js";
import { oneOf, positiveInt, usage } from "../args.js";
import { UsageError } from "../exit.js";
import type { CliIo } from "../io.js";
import { scoreCommand } from "./score.js";

export async function synthCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() =>
    parseArgs({
      args: argv,
      options: {
        out: { type: "string" },
        n: { type: "string" },
        seed: { type: "string" },
        faults: { type: "boolean" },
        events: { type: "string" },
        profile: { type: "string" },
      },
    }),
  );
  if (values.out === undefined) throw new UsageError("assay synth needs --out DIR");
  const listed = await listedSynths();
  if (values.faults && values.profile !== undefined && values.profile !== "native-game")
    throw new UsageError(
      `--faults is for native-game corpora (${["world", "harbor", "inspect", ...listed.map((s) => s.profile)].join(", ")} corpora are made of labelled cases)`,
    );
  const profile = oneOf(
    "profile",
    values.profile,
    ["native-game", "world", "harbor", "inspect", ...listed.map((s) => s.profile)],
    "native-game",
  );
  const kind = listed.find((s) => s.profile === profile);
  if (kind) {
    if (values.events !== undefined) throw new UsageError("--events is for native-game corpora");
    const n = writeKindCorpus(values.out, kind, { n: positiveInt("n", values.n), seed: values.seed ?? "assay" });
    io.stderr(`assay: wrote ${n} ${kind.units} to ${values.out}\n`);
    return 0;
  }
  if (profile === "inspect") await readyZstd();
  const n = writeCorpus(values.out, {
    n: positiveInt("n", values.n),
    seed: values.seed ?? "assay",
    faults: values.faults ?? false,
    events: positiveInt("events", values.events, 8),
    profile: profile as "native-game" | "world" | "harbor" | "inspect",
  });
  io.stderr(`assay: wrote ${n} ${profile === "inspect" ? "Inspect logs" : "bundles"} to ${values.out}\n`);
  return 0;
}

/** The demo's next steps, run from DIR (test/newcomer.test.ts runs each, expecting the exit shown); a listed kind's after the built-in ones. */
const next = (listed: readonly (readonly [string, string])[]): (readonly [string, string])[] => [
  ["assay score runs", "per experiment the metrics; invalid bundles listed"],
  [`assay score jobs/${DEMO_JOB}`, "a Harbor job, its own claims checked"],
  ["assay score logs", "Inspect logs, their plans as denominators"],
  ...listed,
  ["assay verify runs/synth-native/fault-bad-chain/a1", "exit 1: one bundle's findings, with file and line"],
  ["assay score runs worlds jobs logs --out report.html", "one self-contained HTML page"],
];

/** A folder as a shell command names it: plain, else single-quoted (hidden characters escaped). */
const shellWord = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${terminalText(s).replace(/'/g, "'\\''")}'`;

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = usage(() =>
    parseArgs({ args: argv, options: { keep: { type: "boolean" }, out: { type: "string" } } }),
  );
  if (values.out !== undefined) {
    if (values.keep) throw new UsageError("--keep is for the temporary folder; --out DIR is kept");
    return await demoInto(values.out, io);
  }
  const dir = mkdtempSync(join(tmpdir(), "assay-demo-"));
  try {
    const corpus = join(dir, "corpus");
    writeCorpus(join(corpus, "game"), { n: 24, seed: "demo", faults: true });
    writeCorpus(join(corpus, "world"), { n: WORLD_SCENARIOS.length, seed: "demo", faults: false, profile: "world" });
    writeCorpus(join(corpus, "harbor"), { n: 16, seed: "demo", faults: false, profile: "harbor" });
    await readyZstd();
    writeCorpus(join(corpus, "inspect"), { n: INSPECT_CASES.length, seed: "demo", faults: false, profile: "inspect" });
    const listed = withDemo(await listedSynths());
    for (const { synth, demo } of listed)
      writeKindCorpus(join(corpus, demo.folder), synth, { n: demo.n, seed: "demo" });
    // Without --keep the folder is gone when the user reads this: it is not named as a place to look.
    const where = values.keep ? `in ${corpus}` : "in a temporary folder";
    const made = [
      `24 game trials`,
      `${NATIVE_FAULTS.length} labelled broken bundles`,
      `${WORLD_SCENARIOS.length} world scenarios`,
      "a Harbor job of 16 trials",
      `${INSPECT_CASES.length} Inspect logs`,
      ...listed.map(({ demo }) => demo.holds),
    ];
    io.stderr(`assay demo: synthesised ${made.slice(0, -1).join(", ")} and ${made.at(-1)} ${where}\n`);
    return await scoreCommand([corpus, "--quiet"], io);
  } finally {
    if (values.keep) io.stderr(`assay demo: corpus kept in ${dir}\n`);
    else {
      rmSync(dir, { recursive: true, force: true });
      io.stderr(
        "assay demo: removed the temporary folder scored above (--keep keeps it; --out DIR writes the folders README.md and docs/ use)\n",
      );
    }
  }
}

/** `assay demo --out DIR`: the folders the docs use, written into an empty or new DIR, scored, and what to run next. */
async function demoInto(out: string, io: CliIo): Promise<number> {
  if (out === "") throw new UsageError("--out needs a folder");
  if (existsSync(out) && !statSync(out).isDirectory())
    throw new UsageError(`${forTerminal(out)} is not a folder: assay demo --out writes a new folder`);
  if (!isEmptyOrAbsent(out))
    throw new UsageError(`${forTerminal(out)} is not empty: assay demo --out writes only into an empty or new folder`);
  await readyZstd();
  const synths = await listedSynths();
  writeTree(out, demoFiles(synths));
  const folders = [
    ...DEMO_FOLDERS.map((f): [string, string] => [f.folder, f.holds]),
    ...withDemo(synths).map(({ demo }): [string, string] => [demo.folder, demo.holds]),
  ];
  const code = await scoreCommand([...folders.map(([f]) => join(out, f)), "--quiet"], io);
  const rows: [string, string][] = [
    ...folders.map(([f, holds]): [string, string] => [`${f}/`, holds]),
    ["tasks/", DEMO_TASKS_HOLD],
  ];
  io.stderr(
    [
      `assay demo: wrote ${forTerminal(out)}, the folders README.md and docs/ use (scored above):`,
      ...rows.map(([folder, holds]) => `  ${folder.padEnd(8)} ${holds}`),
      "Next, as the docs show (assay on your PATH: npm install -g . in its checkout, README.md):",
      `  cd ${shellWord(out)}`,
      ...next(withDemo(synths).flatMap(({ demo }) => (demo.next ? [demo.next] : []))).map(
        ([command, what]) => `  ${command.padEnd(52)} # ${what}`,
      ),
      "",
    ].join("\n"),
  );
  return code;
}
