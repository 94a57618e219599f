// What test/docs.test.ts needs: the docs' code blocks, and the folder their commands run in.
//
// A page's fenced blocks are of three kinds:
//   ```sh runnable   every command runs (a line ending in `\` continues it); it must exit 0, or N
//                    when its comment starts with `exit N` (`assay verify x   # exit 1: …`);
//   ```sh norun      shown, never run (commands for another machine: Slurm, npm test itself);
//   ``` whose first line starts with `$ assay`: a transcript. The command runs and every line shown
//                    must appear in its output, in order (a line ending in `…` is a prefix; a line
//                    that is only `…` stands for lines left out).
// A ```sh block that is neither runnable nor norun fails the test: every command shown is decided.

import { spawn } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, spawnCli } from "./cli.js";
import { FakeMessagesApi, toolUseReply } from "./fake-anthropic.js";
import { HAVE_SHARED, SHARED_DIR } from "./shared.js";

/** Real archives the docs quote, copied into the sandbox from ../shared/real-world when it is there. */
export const REAL_WORLD: Record<string, string> = {
  "test-oracle-runloop": "harbor-jobs/akashraajputh--New_hire-akash-horbor_task/jobs/test-oracle-runloop",
  "tb-runs":
    "terminal-bench/David-kibobo--ai-challenges/Tasks/software-development/051552bf_21cb_4d6e_985a_435764d87689_terminal_bench_fifo_medium/model_run_logs",
  "eval-lab-runs": "harbor-jobs/PeterMakhnatch--eval-lab/research/evidence/runs",
  "inner-logs": "inspect-more/YuehHanChen--ccot_oe_results/logs",
};
/** A transcript that needs a real archive this machine lacks (no ../shared): its name, else null. */
export const needsAbsentRealWorld = (command: string): string | null =>
  HAVE_SHARED ? null : (Object.keys(REAL_WORLD).find((name) => command.split(/\s+/).includes(name)) ?? null);

export interface Command {
  /** The command as bash runs it (continuation lines joined). */
  text: string;
  /** 1-based line of the page where it starts. */
  line: number;
  exit: number;
}
export interface Transcript {
  command: string;
  line: number;
  shown: string[];
}
export interface Page {
  runnable: Command[];
  transcripts: Transcript[];
  /** ```sh blocks marked neither runnable nor norun, by line. */
  undecided: number[];
}

export function parsePage(text: string): Page {
  const page: Page = { runnable: [], transcripts: [], undecided: [] };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    // CommonMark: a fence is three or more backticks and an info string holding none; it closes at a
    // line of at least as many backticks.
    const open = /^(`{3,})([^`]*)$/.exec(lines[i]!);
    if (open === null) continue;
    const info = open[2]!.trim().split(/\s+/);
    const closing = new RegExp(`^${open[1]}\`*\\s*$`);
    const start = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !closing.test(lines[i]!); i++) body.push(lines[i]!);
    if (info[0] === "sh" || info[0] === "bash") {
      if (info.includes("runnable")) page.runnable.push(...commandsOf(body, start + 1));
      else if (!info.includes("norun")) page.undecided.push(start);
    } else if (info[0] === "" && body[0]?.startsWith("$ assay ")) {
      page.transcripts.push({ command: body[0].slice(2), line: start + 1, shown: body.slice(1) });
    }
  }
  return page;
}

function commandsOf(body: string[], firstLine: number): Command[] {
  const out: Command[] = [];
  let pending: { text: string; line: number } | null = null;
  body.forEach((raw, k) => {
    if (pending === null && (raw.trim() === "" || raw.trim().startsWith("#"))) return;
    const text: string = pending === null ? raw : `${pending.text}\n${raw}`;
    const line: number = pending?.line ?? firstLine + k;
    if (raw.endsWith("\\")) return void (pending = { text, line });
    pending = null;
    const exit = /^#\s*exit (\d+)\b/.exec(text.slice(commentStart(text)));
    out.push({ text, line, exit: exit === null ? 0 : Number(exit[1]) });
  });
  return out;
}

/** Where a trailing `# comment` starts (outside quotes), or the text's length. */
function commentStart(text: string): number {
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== "") quote = c === quote ? "" : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) return i;
  }
  return text.length;
}

/** The lines of `shown` not found in `output` in order (empty: the transcript holds). */
export function transcriptMisses(shown: string[], output: string): string[] {
  const got = output.split("\n").map((l) => l.trimEnd());
  const misses: string[] = [];
  let at = 0;
  for (const want of shown.map((l) => l.trimEnd())) {
    if (want.trim() === "…" || want === "") continue;
    const prefix = want.endsWith("…") ? want.slice(0, -1) : null;
    const found = got.findIndex((l, k) => k >= at && (prefix === null ? l === want : l.startsWith(prefix)));
    if (found < 0) misses.push(want);
    else at = found + 1;
  }
  return misses;
}

/**
 * The folder the docs' commands run in: what a newcomer gets from `assay demo --out DIR` (the built
 * CLI, spawned: runs/, worlds/, jobs/…, logs/, tasks/), plus what only this machine or the test
 * has: the real archives of REAL_WORLD when ../shared is there, and bin/assay, the built CLI.
 */
export function writeSandbox(dir: string): void {
  const demo = spawnCli(["demo", "--out", dir]);
  if (demo.code !== 0) throw new Error(`assay demo --out ${dir}: exit ${demo.code}\n${demo.stderr}`);
  if (HAVE_SHARED)
    for (const [name, from] of Object.entries(REAL_WORLD))
      cpSync(join(SHARED_DIR, "real-world", from), join(dir, name), { recursive: true });
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "assay"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(dir, "bin", "assay"), 0o755);
}

/**
 * Runs one command line in bash in `cwd`, with only the environment the docs' commands see: `env`
 * (PATH, HOME, the Messages API's URL) and a fake API key. Asynchronous: the fake Messages API
 * answers from the test's own process.
 */
export function shell(
  cwd: string,
  command: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn("bash", ["-c", command], {
    cwd,
    timeout: 120_000,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ANTHROPIC_API_KEY: "sk-ant-docs-test-0000000000", ASSAY_STATUS_SECONDS: "3600", ...env },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => void (out += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => void (err += t));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** The Messages API the docs' model commands talk to: any forced tool call answered (answerFor), with usage. */
export function docsMessagesApi(): FakeMessagesApi {
  const fake = FakeMessagesApi.forTests();
  fake.fallback = (req) => {
    const tool = req.body.tools?.[0];
    return toolUseReply(tool?.name ?? "none", answerFor(tool?.input_schema), {
      usage: { input_tokens: 1200, output_tokens: 300 },
    });
  };
  return fake;
}

/** A reply for any forced tool call: a value of the tool's input schema (first enum member, "ok", 0, []). */
export function answerFor(schema: any): unknown {
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  if (schema?.const !== undefined) return schema.const;
  for (const k of ["anyOf", "oneOf"] as const) if (Array.isArray(schema?.[k])) return answerFor(schema[k][0]);
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === "object")
    return Object.fromEntries(Object.entries<any>(schema.properties ?? {}).map(([k, v]) => [k, answerFor(v)]));
  if (type === "array") return Array.from({ length: schema.minItems ?? 0 }, () => answerFor(schema.items));
  if (type === "string") return "The evidence shown supports this.";
  if (type === "number" || type === "integer") return schema.minimum ?? 0;
  if (type === "boolean") return false;
  return null;
}
