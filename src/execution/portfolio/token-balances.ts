/**
 * The account's token balances across the portfolio's markets: a baseline per token
 * (`setBaseline`, raw units as of a block time) plus the flows of the fills after it, less what the
 * live orders lock (buy: quote at its price for its remaining size plus the maker fee; sell: the raw
 * base of its remaining size), summed over the markets that share the token.
 *
 * Separate from the fill ledgers and the order registry because a token spans markets: each
 * market's ledger reports its fills' movements here (`flow`), the portfolio its open orders' locks
 * (`setLocked`), and a balance is read from both.
 */
import type { Address } from '../../protocol/encoding.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { FlowSink } from './fill-ledger.ts';

export interface TokenBalance {
  /** Raw units: the baseline set by `setBalance` plus the flows of later fills. */
  readonly total: bigint;
  /** Raw units locked by live orders (all markets that trade the token). */
  readonly locked: bigint;
  readonly available: bigint;
}

interface TokenAccount {
  baseline: { readonly raw: bigint; readonly asOf: number } | undefined;
  /** Every flow of the run. */
  flow: bigint;
  /** The flows at or before the baseline's time: the baseline has them already. */
  flowBefore: bigint;
}

/** What one market's live orders lock, raw units. */
interface MarketLock {
  readonly spec: MarketSpec;
  base: bigint;
  quote: bigint;
}

/** Whether two balances are equal (both unset counts as equal). */
export function sameBalance(a: TokenBalance | undefined, b: TokenBalance | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.total === b.total && a.locked === b.locked && a.available === b.available;
}

export class TokenBalances {
  readonly #tokens = new Map<Address, TokenAccount>();
  readonly #locks = new Map<Address, MarketLock>();

  constructor(markets: readonly MarketSpec[]) {
    for (const spec of markets) {
      this.#locks.set(spec.address, { spec, base: 0n, quote: 0n });
      this.#account(spec.baseToken.address);
      this.#account(spec.quoteToken.address);
    }
  }

  /** The fill ledgers' sink: `delta` raw units of `token` moved at block time `timeMs`. */
  readonly flow: FlowSink = (token, delta, timeMs) => {
    const account = this.#tokens.get(token);
    if (account === undefined) return;
    account.flow += delta;
    if (account.baseline !== undefined && timeMs <= account.baseline.asOf) account.flowBefore += delta;
  };

  /**
   * Sets `token`'s baseline (lower-case address): `raw` units as of block time `asOfMs`, which
   * already hold `flowBefore`, the flows of the fills up to then.
   */
  setBaseline(token: Address, raw: bigint, asOfMs: number, flowBefore: bigint): void {
    const account = this.#account(token);
    account.baseline = { raw, asOf: asOfMs };
    account.flowBefore = flowBefore;
  }

  /** What `market`'s live orders lock now, raw units of its base and quote tokens. */
  setLocked(market: Address, base: bigint, quote: bigint): void {
    const lock = this.#locks.get(market)!;
    lock.base = base;
    lock.quote = quote;
  }

  /** The balance of `token` (lower-case address), once it has a baseline. */
  balance(token: Address): TokenBalance | undefined {
    const account = this.#tokens.get(token);
    if (account === undefined || account.baseline === undefined) return undefined;
    const total = account.baseline.raw + account.flow - account.flowBefore;
    let locked = 0n;
    for (const lock of this.#locks.values()) {
      if (lock.spec.baseToken.address === token) locked += lock.base;
      if (lock.spec.quoteToken.address === token) locked += lock.quote;
    }
    return { total, locked, available: total - locked };
  }

  #account(token: Address): TokenAccount {
    let account = this.#tokens.get(token);
    if (account === undefined) {
      account = { baseline: undefined, flow: 0n, flowBefore: 0n };
      this.#tokens.set(token, account);
    }
    return account;
  }
}
