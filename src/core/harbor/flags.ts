// Review flags (contract §11): signs a person should look at, never verdicts. A flag changes no
// state and no metric; each names the evidence that raised it (file, trajectory step, the text).

import { shorten } from "../text.js";
import type { TrialView } from "./result.js";

export interface ReviewFlag {
  code: "WRITES_REWARD_PATH" | "WRITES_TESTS_DIR" | "STEP_EXCEPTION";
  evidence: string;
}

/** Where a path begins: not inside another path (`/app/tests/` is not `/tests/`). */
const START = String.raw`(?<![\w.~/-])`;
const TARGETS = [
  { code: "WRITES_REWARD_PATH", path: String.raw`${START}/logs/verifier\b`, hint: "/logs/verifier" },
  { code: "WRITES_TESTS_DIR", path: String.raw`${START}/tests\b`, hint: "/tests" },
] as const;

/** Shell and Python spellings of writing to (or removing, moving onto, changing) a path P. */
const writes = (p: string): RegExp =>
  new RegExp(
    [
      String.raw`>{1,2}\s*['"]?${p}`,
      String.raw`\btee\s+(?:-a\s+)?['"]?${p}`,
      String.raw`\b(?:cp|mv|install|rsync|ln)\b[^\n;&|]*\s['"]?${p}[^\s;&|'"]*['"]?\s*(?:$|[\n;&|])`,
      String.raw`\b(?:rm|touch|truncate|chmod|chown|mkdir|unlink|shred)\b[^\n;&|]*\s['"]?${p}`,
      String.raw`\bsed\s+-[a-zA-Z]*i[^\n;&|]*\s['"]?${p}`,
      String.raw`\bopen\(\s*['"]${p}[^'"]*['"]\s*,\s*['"][wax+]`,
      String.raw`${p}[^\s'"]*['"]\s*\)\s*\.write_(?:text|bytes)`,
    ].join("|"),
    "m",
  );
const WRITES = TARGETS.map((t) => ({ ...t, re: writes(t.path), bare: new RegExp(`^${t.path}`) }));
/** Editor tools write by argument, not by shell syntax. */
const EDIT_COMMANDS = new Set(["create", "str_replace", "insert", "write", "edit", "append", "overwrite"]);

const MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024;

/** The texts an agent step wrote: its message and every string in its tool calls' arguments. */
function agentTexts(step: Record<string, unknown>): { text: string; editPath: string | null }[] {
  const out: { text: string; editPath: string | null }[] = [];
  const m = step["message"];
  if (typeof m === "string") out.push({ text: m, editPath: null });
  else if (Array.isArray(m)) for (const part of m) if (typeof part?.text === "string") out.push({ text: part.text, editPath: null });
  const calls = Array.isArray(step["tool_calls"]) ? step["tool_calls"] : [];
  for (const call of calls) {
    let args: unknown = call?.arguments;
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        out.push({ text: args as string, editPath: null });
        continue;
      }
    }
    const a = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
    const path = typeof a["path"] === "string" ? a["path"] : typeof a["file_path"] === "string" ? a["file_path"] : null;
    // The command decides when there is one (an editor's "view" only reads); else the tool's name.
    const command = a["command"];
    const edits = path !== null && (typeof command === "string" ? EDIT_COMMANDS.has(command) : /write|edit|create/i.test(String(call?.function_name ?? "")));
    if (edits) out.push({ text: `${call?.function_name ?? "tool"} ${a["command"] ?? ""} ${path}`, editPath: path });
    for (const s of strings(args)) out.push({ text: s, editPath: null });
  }
  return out;
}

function strings(v: unknown): string[] {
  const out: string[] = [];
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === "string") out.push(x);
    else if (typeof x === "object" && x !== null) stack.push(...Object.values(x));
  }
  return out;
}

/** The snippet around a match, on one line. */
const around = (text: string, index: number) =>
  shorten(text.slice(Math.max(0, index - 60), index + 100).replace(/\s+/g, " ").trim(), 160);

/** Scan one ATIF trajectory for writes to the verifier's reward path or the tests directory. */
export function scanTrajectory(file: string, bytes: Uint8Array): ReviewFlag[] {
  if (bytes.length > MAX_TRAJECTORY_BYTES) return [];
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (!TARGETS.some((t) => raw.includes(t.hint))) return [];
  let texts: { where: string; text: string; editPath: string | null }[];
  try {
    const doc = JSON.parse(raw) as { steps?: unknown };
    const steps = Array.isArray(doc.steps) ? (doc.steps as Record<string, unknown>[]) : [];
    texts = steps.flatMap((s, i) =>
      s?.["source"] === "agent" ? agentTexts(s).map((t) => ({ ...t, where: `step ${typeof s["step_id"] === "number" ? s["step_id"] : i + 1}` })) : [],
    );
  } catch {
    texts = [{ where: "(not valid JSON)", text: raw, editPath: null }];
  }
  const flags: ReviewFlag[] = [];
  for (const t of WRITES) {
    const hits: string[] = [];
    for (const x of texts) {
      if (!x.text.includes(t.hint)) continue;
      const m = x.editPath !== null ? (t.bare.test(x.editPath) ? { index: x.text.indexOf(x.editPath) } : null) : t.re.exec(x.text);
      if (m) hits.push(`${x.where}: ${around(x.text, m.index)}`);
    }
    if (hits.length > 0)
      flags.push({ code: t.code, evidence: `${file} ${hits[0]}${hits.length > 1 ? ` (and ${hits.length - 1} more)` : ""}` });
  }
  return flags;
}

/** A step that raised an exception while the trial's own exception_info is null. */
export function stepExceptionFlags(view: TrialView): ReviewFlag[] {
  if (view.exception !== null) return [];
  return view.steps
    .filter((s) => s.exception !== null)
    .map((s) => ({
      code: "STEP_EXCEPTION" as const,
      evidence: `result.json step_results[${s.index}] (step ${shorten(s.name ?? "unnamed", 60)}): ${shorten(`${s.exception!.type}: ${s.exception!.message}`, 200)} — the trial's own exception_info is null`,
    }));
}
