// Line 1 of a journal read leniently (§6 attribution: "whatever else is wrong with it"), for who a
// bundle belongs to and which profile judges the rest: the scorer's reading, and a tool error's.
import { isId, isInteger } from "../../core/text.js";

/** Who a bundle belongs to, read from line 1 whatever else is wrong with it (§6 attribution). */
export interface Attribution {
  experiment: string | null;
  trial: string | null;
  attempt: number | null;
  seed: string | null;
  task: string | null;
}

/**
 * Line 1 read leniently, for attribution only (§6: "whatever else is wrong with it"): a header
 * with a raw \r, a BOM, a duplicate key or a bare NaN still names its trial, so its trial is
 * invalid rather than silently missing — broken evidence must never remove a loss.
 */
export function lenientObject(bytes: Uint8Array): Record<string, unknown> | null {
  return parseObject(lenientText(bytes));
}

/**
 * Line 1 read leniently for the profile that judges the rest of the journal (readHeader): as
 * lenientObject, but null when `type`, `format` or `profile` is written twice at the top level —
 * JSON.parse keeps the last one, and which one the writer meant would be a guess (judging a world
 * journal as native-game would only flood it with misleading findings).
 */
export function lenientHeader(bytes: Uint8Array): Record<string, unknown> | null {
  const text = lenientText(bytes);
  const v = parseObject(text);
  if (v === null) return null;
  const seen = new Set<string>();
  for (const k of topLevelKeys(text)) {
    if (seen.has(k) && (k === "type" || k === "format" || k === "profile")) return null;
    seen.add(k);
  }
  return v;
}

const lenientText = (bytes: Uint8Array): string =>
  withoutNonFinite(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .replace(/\r/g, ""),
  );

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The keys of a JSON object text's top level, unescaped, in order (`text` must parse). */
function topLevelKeys(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      let k = j + 1;
      while (text[k] === " " || text[k] === "\t" || text[k] === "\n") k++;
      if (depth === 1 && text[k] === ":") keys.push(JSON.parse(text.slice(i, j + 1)) as string);
      i = j;
    }
  }
  return keys;
}

/** Bare NaN/Infinity tokens outside strings become null (JSON.parse rejects them). */
function withoutNonFinite(s: string): string {
  if (!/NaN|Infinity/.test(s)) return s;
  let out = "";
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (inString) {
      if (c === "\\") {
        out += c + (s[i + 1] ?? "");
        i++;
        continue;
      }
      if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else {
      const m = /^-?(NaN|Infinity)/.exec(s.slice(i, i + 9));
      if (m) {
        out += "null";
        i += m[0].length - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** Who line 1 names, each field null where it names none soundly. */
export function attributionOf(line1: Record<string, unknown> | null): Attribution {
  const meta = line1?.["meta"];
  const task = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["task"] : undefined;
  const attempt = line1?.["attempt"];
  return {
    experiment: isId(line1?.["experiment"]) ? line1["experiment"] : null,
    trial: isId(line1?.["trial"]) ? line1["trial"] : null,
    attempt: isInteger(attempt) && attempt >= 1 ? attempt : null,
    seed: typeof line1?.["seed"] === "string" ? line1["seed"] : null,
    task: typeof task === "string" ? task : null,
  };
}
