// List prices per model, to record what each answered request cost (provenance). A model not in the
// table has no known price: its cost is null, never a guess. Budgets and overrides (--price) build
// on this table later.

/** When these prices were read from the public price list. */
export const PRICES_AS_OF = "2025-11";

/** US dollars per million input and output tokens. */
const PRICES: Record<string, { input: number; output: number }> = {
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-5-20251101": { input: 5, output: 25 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4-5-20250929": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-haiku-4-5-20251001": { input: 1, output: 5 },
};

export function costOf(model: string, inputTokens: number, outputTokens: number): number | null {
  const p = PRICES[model];
  return p === undefined ? null : (inputTokens * p.input + outputTokens * p.output) / 1e6;
}
