// Spending limits for model requests (--max-calls, --max-cost). Before each request its worst case
// is reserved — every byte of the request counted as an input token, max_tokens as output — so that
// concurrent requests can never overshoot the limit together; the reservation is replaced by the
// actual cost when the reply arrives. A model without a known price cannot be held to a cost limit.

import { PRICES_AS_OF, priceOf, type Price } from "./prices.js";

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
      throw new BudgetError(`no price is known for ${model}: give --price ${model}=IN,OUT (US dollars per million tokens) to hold it to --max-cost`);
  }

  /** Reserve a request's worst case; null (and nothing reserved) when it could exceed a limit. */
  reserve(requestBytes: number, maxTokens: number): { worstUsd: number } | null {
    if (this.limits.maxCalls !== undefined && this.calls >= this.limits.maxCalls) return null;
    const worstUsd = this.price === null ? 0 : (requestBytes * this.price.input + maxTokens * this.price.output) / 1e6;
    if (this.limits.maxCostUsd !== undefined && this.spentUsd + this.reservedUsd + worstUsd > this.limits.maxCostUsd) return null;
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
    return calls ? `budget reached (--max-calls ${this.limits.maxCalls})` : `budget reached (--max-cost ${this.limits.maxCostUsd} USD)`;
  }

  describe(): string {
    const cost = this.price === null ? "cost unknown (no price for this model)" : `${this.spentUsd.toFixed(4)} USD spent (list prices as of ${PRICES_AS_OF})`;
    return `${this.calls} request${this.calls === 1 ? "" : "s"}, ${cost}`;
  }
}
