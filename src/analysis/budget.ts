// Spending limits for model requests (--max-calls, --max-cost). Before each request its worst case
// is reserved — every byte of the request counted as an input token, plus a 1,000-token tool-use preamble, max_tokens as output — so that
// concurrent requests can never overshoot the limit together; the reservation is replaced by the
// actual cost when the reply arrives; a request that does not fit beside those in flight waits for
// them rather than giving up. A model without a known price cannot be held to a cost limit. The
// SDK's own retries of one request (429, 5xx, timeouts) are one call here: a retried request is
// rarely charged twice, but --max-cost cannot see it.

import { PRICES_AS_OF, priceOf, type Price } from "./prices.js";

/** Tokens a forced tool call adds to a request beyond its own bytes (the API's tool-use system prompt). */
const PREAMBLE_TOKENS = 1000;

export interface BudgetLimits {
  maxCalls?: number | undefined;
  maxCostUsd?: number | undefined;
}

export class BudgetError extends Error {
  readonly code = "USAGE";
}

export class Budget {
  calls = 0;
  spentUsd = 0;
  private reservedUsd = 0;
  private readonly price: Price | null;

  constructor(
    readonly limits: BudgetLimits,
    readonly model: string,
    overrides: ReadonlyMap<string, Price> = new Map(),
  ) {
    this.price = priceOf(model, overrides);
    if (limits.maxCostUsd !== undefined && this.price === null)
      throw new BudgetError(
        `no price is known for ${model}: give --price ${model}=IN,OUT (US dollars per million tokens) to hold it to --max-cost`,
      );
  }

  /** A request's worst case: every byte an input token (plus the tool-use preamble), max_tokens of output. */
  worst(requestBytes: number, maxTokens: number, priceFactor = 1): number {
    return this.price === null
      ? 0
      : (priceFactor * ((requestBytes + PREAMBLE_TOKENS) * this.price.input + maxTokens * this.price.output)) / 1e6;
  }

  /**
   * Reserve a request's worst case. "wait": it does not fit beside the requests in flight but could
   * once they settle (their real cost is usually far below their reservation); "no": it never will.
   */
  reserve(requestBytes: number, maxTokens: number, priceFactor = 1): { worstUsd: number } | "wait" | "no" {
    if (this.limits.maxCalls !== undefined && this.calls >= this.limits.maxCalls) return "no";
    const worstUsd = this.worst(requestBytes, maxTokens, priceFactor);
    const max = this.limits.maxCostUsd;
    if (max !== undefined && this.spentUsd + worstUsd > max) return "no";
    if (max !== undefined && this.spentUsd + this.reservedUsd + worstUsd > max) return "wait";
    this.calls++;
    this.reservedUsd += worstUsd;
    return { worstUsd };
  }

  /** The reply arrived (or the request failed): the reservation becomes what it really cost. */
  settle(reservation: { worstUsd: number }, actualUsd: number | null): void {
    this.reservedUsd -= reservation.worstUsd;
    this.spentUsd += actualUsd ?? 0;
  }

  /** Why a request was not made, for its "not analysed" reason. */
  get reason(): string {
    const calls = this.limits.maxCalls !== undefined && this.calls >= this.limits.maxCalls;
    return calls
      ? `budget reached (--max-calls ${this.limits.maxCalls})`
      : `budget reached (--max-cost ${this.limits.maxCostUsd} USD)`;
  }

  describe(): string {
    const cost =
      this.price === null
        ? "cost unknown (no price for this model)"
        : `${this.spentUsd.toFixed(4)} USD spent (list prices as of ${PRICES_AS_OF})`;
    return `${this.calls} request${this.calls === 1 ? "" : "s"}, ${cost}`;
  }
}
