// List prices per model, to record what each answered request cost (provenance) and to hold runs
// to --max-cost. A model not in the table has no known price: its cost is null, never a guess;
// --price MODEL=IN,OUT supplies or overrides one.

/** When these prices were read from the public price list (shown with every cost). */
export const PRICES_AS_OF = "2025-11";

/** US dollars per million input and output tokens. */
export interface Price {
  input: number;
  output: number;
}

const PRICES: Record<string, Price> = {
  "claude-opus-4-5": { input: 5, output: 25 },
  "claude-opus-4-5-20251101": { input: 5, output: 25 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4-5-20250929": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-haiku-4-5-20251001": { input: 1, output: 5 },
};

export const priceOf = (model: string, overrides: ReadonlyMap<string, Price> = new Map()): Price | null =>
  overrides.get(model) ?? PRICES[model] ?? null;

export function costOf(
  model: string,
  inputTokens: number,
  outputTokens: number,
  overrides?: ReadonlyMap<string, Price>,
): number | null {
  const p = priceOf(model, overrides);
  return p === null ? null : (inputTokens * p.input + outputTokens * p.output) / 1e6;
}

/** "MODEL=IN,OUT" (dollars per million tokens) → [model, price]; null when malformed. */
export function parsePrice(spec: string): [string, Price] | null {
  const m = /^([^=\s]+)=(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/.exec(spec);
  return m === null ? null : [m[1]!, { input: Number(m[2]), output: Number(m[3]) }];
}
