// Field-by-field comparison of a written document with its recomputation.

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]))
  );
}

/**
 * Dotted names of the fields where `actual` differs from `expected`, descending into objects
 * both sides hold (so a wrong `journal.head` is named as such, not as `journal`).
 */
export function differingFields(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  prefix = "",
): string[] {
  const out: string[] = [];
  for (const [k, e] of Object.entries(expected)) {
    const a = actual[k];
    const bothObjects =
      typeof e === "object" &&
      e !== null &&
      !Array.isArray(e) &&
      typeof a === "object" &&
      a !== null &&
      !Array.isArray(a);
    if (bothObjects)
      for (const f of differingFields(e as Record<string, unknown>, a as Record<string, unknown>, `${prefix}${k}.`))
        out.push(f);
    else if (!jsonEqual(e, a)) out.push(prefix + k);
  }
  return out;
}
