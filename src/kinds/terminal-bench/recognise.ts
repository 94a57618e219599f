// What discovery asks of a folder (docs/terminal-bench.md rule 1), as pure predicates: is this a
// `tb run` folder, decided from a bounded head of its results.json; and what a trial folder's name
// says. Nothing here reads a file.

/** How much of a results.json the decision reads first: TB writes `id`, then `results`, whose first entry opens with id, trial_name, task_id. */
export const RUN_HEAD_BYTES = 64 * 1024;
/**
 * The most it reads when the head ends before the answer (a key-sorted file puts a long
 * `instruction` before `trial_name`): each read 16 times the last, up to the largest results.json
 * the run's book reads at all (MAX_DOCUMENT_BYTES), so recognition never costs more than reading it.
 */
export const RUN_HEAD_GROWTH = 16;

/** The sibling files of results.json discovery saw (they strengthen, never replace, the content test). */
export interface RunSiblings {
  tbLock: boolean;
  runMetadata: boolean;
}

/** `more`: the head ended before the answer, and a longer read may decide; `cut`: it ended before the answer, and no longer read will. */
export type RunRecognition = { run: true; reason: string } | { run: false; reason: string; more?: true; cut?: true };

/**
 * A run folder: results.json whose top level holds a `results` list whose first entry is an object
 * with `trial_name` and `task_id` — or an empty list beside tb.lock or run_metadata.json (a run
 * with no trial finished yet). results.json alone suffices: archives keep only it and the trial
 * folders (research §A.10 rule 1). Decided from `head`, the file's first bytes. A head that ends
 * before the answer asks for `more`, unless it is `final` (the whole file, or all assay reads of
 * one): then one that ended inside the first trial entry is a run whose list cannot be read (its
 * book says so, and rule 15a holds its trials to their panes), never a run passed over in silence.
 */
export function recogniseRun(head: Uint8Array, siblings: RunSiblings, final = false): RunRecognition {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("utf8");
  const found = scanHead(text);
  if ((found === "in-entry" || found === "short") && !final)
    return { run: false, reason: `results.json is not decided within its first ${head.byteLength} bytes`, more: true };
  if (found === "in-entry")
    return {
      run: true,
      reason: `results.json's first trial entry does not end within the ${head.byteLength} bytes read: a run whose list cannot be read`,
    };
  if (found === "short")
    return {
      run: false,
      reason: `results.json ends, or reaches the ${head.byteLength} bytes read, before its results list`,
      cut: true,
    };
  const beside = [siblings.tbLock ? "tb.lock" : null, siblings.runMetadata ? "run_metadata.json" : null]
    .filter((x) => x !== null)
    .join(" and ");
  if (found === "entry")
    return {
      run: true,
      reason: `results.json lists trials (trial_name, task_id)${beside === "" ? "" : ` beside ${beside}`}`,
    };
  if (found === "empty" && beside !== "")
    return { run: true, reason: `results.json lists no trial yet, beside ${beside}` };
  return {
    run: false,
    reason:
      found === "empty"
        ? "results.json lists no trial, and neither tb.lock nor run_metadata.json is beside it"
        : "results.json has no top-level results list of trials in its first bytes",
  };
}

/**
 * Walks the head as JSON tokens, never building a value: "entry" when the top-level `results`
 * list's first element is an object with both keys, "empty" for `[]`; when the head ends before
 * that is decided, "in-entry" (inside the first element, an object) or "short" (before it); null
 * otherwise (not that shape). Its state is a depth counter and a few flags.
 */
function scanHead(s: string): "entry" | "empty" | "in-entry" | "short" | null {
  let i = 0;
  const ws = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\n" || s[i] === "\t" || s[i] === "\r")) i++;
  };
  /** Skips a string token at i without keeping its text (a value may be megabytes); false when the head ends in it. */
  const skipString = (): boolean => {
    for (i++; i < s.length; i++) {
      if (s[i] === "\\") i++;
      else if (s[i] === '"') {
        i++;
        return true;
      }
    }
    return false;
  };
  /** A string token at i → its decoded text (escapes other than \" and \\ kept raw), or null when the head ends in it. */
  const string = (): string | null => {
    let out = "";
    for (i++; i < s.length; i++) {
      const c = s[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        i++;
        out += s[i] === '"' || s[i] === "\\" ? s[i] : `\\${s[i] ?? ""}`;
      } else out += c;
    }
    return null;
  };
  /** Skips one value at i; false when the head ends first. */
  const skip = (): boolean => {
    const c = s[i];
    if (c === undefined) return false;
    if (c === '"') return skipString();
    if (c === "{" || c === "[") {
      let depth = 0;
      while (i < s.length) {
        const d = s[i]!;
        if (d === '"') {
          if (!skipString()) return false;
          continue;
        }
        if (d === "{" || d === "[") depth++;
        else if ((d === "}" || d === "]") && --depth === 0) {
          i++;
          return true;
        }
        i++;
      }
      return false;
    }
    while (i < s.length && !",}] \n\t\r".includes(s[i]!)) i++;
    return i < s.length;
  };
  /** Reads an object's keys at i ("{"), calling `onKey` before each value; returns at its end or when onKey decides. */
  const object = (onKey: (k: string) => "skip" | "stop"): boolean => {
    i++;
    for (;;) {
      ws();
      if (s[i] === "}") return true;
      if (s[i] !== '"') return false;
      const k = string();
      if (k === null) return false;
      ws();
      if (s[i] !== ":") return false;
      i++;
      ws();
      if (onKey(k) === "stop") return true;
      if (!skip()) return false;
      ws();
      if (s[i] === ",") i++;
      else if (s[i] === "}") return true;
      else return false;
    }
  };
  let result: "entry" | "empty" | "in-entry" | "short" | null = null;
  ws();
  if (i === s.length) return "short";
  if (s[i] !== "{") return null;
  object((k) => {
    if (k !== "results") return "skip";
    if (s[i] !== "[") return "stop";
    i++;
    ws();
    if (s[i] === "]") result = "empty";
    else if (s[i] === "{") {
      const seen = new Set<string>();
      result = "in-entry"; // until its keys decide
      object((key) => {
        if (key === "trial_name" || key === "task_id") seen.add(key);
        if (seen.size === 2) {
          result = "entry";
          return "stop";
        }
        return "skip";
      });
      if (result === "in-entry" && i < s.length) result = null; // the entry ended, or is malformed, without both keys
    } else if (i === s.length) result = "short";
    return "stop";
  });
  // The head ran out before `results` was reached, or inside a value before it.
  return result === null && i >= s.length ? "short" : result;
}

/** A trial folder name: `<task>.<k>-of-<n>` with `.<run_id>` from 0.2.12 on (research §A.7). */
export interface TrialName {
  task: string;
  attempt: number;
  of: number;
  runId: string | null;
}

/**
 * TB's own pattern, `^(.+?)\.(\d+)-of-(\d+)\.(.+)$`, with the run id optional for 0.2.7. Given the
 * task folder's name, the task is that prefix (task ids may hold dots and `-of-`); without it,
 * the shortest prefix, as TB's regex takes it. null: not a trial name.
 */
/** Longer is no folder's name (file systems stop at 255 bytes), and is not tried: the search below is quadratic in it. */
const MAX_NAME = 1024;

export function parseTrialName(name: string, task?: string): TrialName | null {
  if (name.length > MAX_NAME) return null;
  const tail = /^(\d+)-of-(\d+)(?:\.(.+))?$/s;
  const read = (prefix: string, rest: string): TrialName | null => {
    const m = tail.exec(rest);
    if (m === null || prefix === "") return null;
    const attempt = Number(m[1]);
    const of = Number(m[2]);
    return Number.isSafeInteger(attempt) && Number.isSafeInteger(of)
      ? { task: prefix, attempt, of, runId: m[3] ?? null }
      : null;
  };
  if (task !== undefined) return name.startsWith(`${task}.`) ? read(task, name.slice(task.length + 1)) : null;
  for (let dot = name.indexOf("."); dot !== -1; dot = name.indexOf(".", dot + 1)) {
    const r = read(name.slice(0, dot), name.slice(dot + 1));
    if (r !== null) return r;
  }
  return null;
}

/**
 * A run's subfolder is a task folder when a subfolder of its own is named like one of its trials;
 * otherwise it is something else — another run nested inside (the leaderboard has one), or not
 * evidence at all (research §A.10 rule 1).
 */
export const isTaskFolder = (name: string, children: readonly string[]): boolean =>
  children.some((c) => parseTrialName(c, name) !== null);
