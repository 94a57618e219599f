// zod building blocks for the contract's exact types (§2), and zod errors turned into findings.

import { z } from "zod";
import { finding, type Code, type Finding } from "./codes.js";
import { JsonDecimal } from "./json/strict.js";
import { clip, codePointLength, ID_RE, isDigest } from "./text.js";

/** An integer field: a literal `-?(0|[1-9][0-9]*)` within ±(2^53−1); `1.0` arrives boxed and fails. */
export const int = (min?: number, max?: number) => {
  let s = z.int({ error: "expected an integer literal" });
  if (min !== undefined) s = s.min(min);
  if (max !== undefined) s = s.max(max);
  return s;
};
/** Any finite number, however spelled. */
export const finiteNumber = z.union([z.number(), z.instanceof(JsonDecimal).transform((d) => d.value)]);
/** A string of at most `max` code points (and at least `min`). */
export const text = (max: number, min = 0) =>
  z.string().refine(
    (s) => {
      const n = s.length <= max && s.length >= min ? s.length : codePointLength(s);
      return n <= max && n >= min;
    },
    `expected ${min > 0 ? `${min}..` : "at most "}${max} code points`,
  );
export const id = z.string().regex(ID_RE, "expected an id");

/**
 * Keys evidence may not use for a map: `__proto__` cannot be set on a plain object (zod and any
 * `out[k] = v` drop it without a word), `constructor` is what every object inherits (a lookup of
 * an absent one finds a function), and `prototype` is every function's. Refused (SCHEMA, naming
 * the key), never lost unseen.
 */
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);
export const isReservedKey = (k: string): boolean => RESERVED_KEYS.has(k);
/** The refusal's words, one for every place that reads evidence into a map. */
export const reservedKeyMessage = (k: string): string => `a key named ${k} cannot be read`;
/**
 * m[k] = v as an own member whatever k is: `m["__proto__"] = v` would set m's prototype (or, for a
 * number, do nothing) and lose the value; a defined property is an ordinary member, which
 * JSON.stringify, structured clone and Object.entries all keep.
 */
export function setOwn<V>(m: Record<string, V>, k: string, v: V): void {
  if (k === "__proto__")
    Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
  else m[k] = v;
}
/** m[k] when m itself holds k: never what every object inherits (`toString`, `valueOf`, …). */
export const own = <V>(m: Readonly<Record<string, V>>, k: string): V | undefined =>
  Object.hasOwn(m, k) ? m[k] : undefined;

/** z.record for evidence: an object holding a reserved key is refused, naming it. */
export const record = <K extends z.core.$ZodRecordKey, V extends z.ZodType>(key: K, value: V) =>
  z
    .custom<Record<string, unknown>>()
    .superRefine((v, ctx) => {
      if (typeof v !== "object" || v === null) return;
      for (const k of RESERVED_KEYS)
        if (Object.hasOwn(v, k)) ctx.addIssue({ code: "custom", message: reservedKeyMessage(k), path: [k] });
    })
    .pipe(z.record(key, value));
export const digest = z.string().refine(isDigest, "expected a digest (64 lowercase hex digits)");

/**
 * The envelope keys of a journal record. JournalReader has already checked their types before a
 * record reaches a profile's schema, so here they are only declared (records stay strict).
 */
export const envelope = <T extends string>(type: T) => ({
  seq: z.custom<number>(),
  at: z.custom<number>(),
  type: z.literal(type),
  prev: z.custom<string>(),
});

/** Validate `value`; on failure push one SCHEMA finding naming the fields, return null. */
export function check<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  line: number | null,
  out: Finding[],
  code: Code = "SCHEMA",
): z.output<S> | null {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  out.push(finding(code, file, line, describeIssues(r.error.issues)));
  return null;
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, 4).map((i) => {
    const at =
      i.path.length > 0
        ? i.path.map((k) => (typeof k === "string" && k.length > 40 ? `${k.slice(0, 40)}…` : String(k))).join(".")
        : "(record)";
    // zod lists every unknown key; a hostile record can hold thousands.
    const message = i.code === "unrecognized_keys" ? unknownKeys(i.keys) : i.message;
    return `${at}: ${message}`;
  });
  if (issues.length > 4) parts.push(`and ${issues.length - 4} more`);
  return parts.join("; ");
}

function unknownKeys(keys: readonly string[]): string {
  const shown = keys
    .slice(0, 5)
    .map((k) => clip(k, 40))
    .join(", ");
  return `unknown key${keys.length > 1 ? "s" : ""} ${shown}${keys.length > 5 ? ` and ${keys.length - 5} more` : ""}`;
}
