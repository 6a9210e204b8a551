/**
 * The account's truth across runs, for the engine: its ledger per market (position, basis, realized
 * PnL, fees) carried from one run to the next through the journal, and its token balances read from
 * the chain (protocol-facts.md "Chain reads").
 *
 * - On start (`restore`), the journal's newest ledger checkpoint becomes each market's starting
 *   ledger (account-ledger.ts): risk limits and strategies see the account's position, not this
 *   run's. The engine reads order events from the checkpoint's horizon, so fills made while the bot
 *   was down are counted once.
 * - After the first poll (`start`) and every `periodMs`, the free balances are read from the chain;
 *   with what the portfolio's open orders lock they are the balances' new baseline. The first read
 *   is compared with the checkpoint's balances moved by the fills since: when they differ (a
 *   deposit, a withdrawal, another bot trading the account) the run says so, with the amounts.
 * - Each period and on `stop`, a new checkpoint goes to the journal when anything changed.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Address } from '../protocol/encoding.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { ChainReader } from '../clients/chain-reader.ts';
import type { LedgerCheckpoint } from './account-ledger.ts';
import type { LedgerRecord } from './journal-record.ts';
import type { Portfolio } from './portfolio.ts';

/** Default period of the chain reads and checkpoints, ms. */
export const DEFAULT_ACCOUNT_READ_MS = 30_000;

/** Reads of the balances before one that no block interrupted is given up on. */
const BALANCE_READ_ATTEMPTS = 3;


export interface AccountTruthContext {
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface AccountTruthParameters {
  readonly accountId: bigint;
  readonly markets: readonly MarketSpec[];
  readonly portfolio: Portfolio;
  /** The chain reads; without them (backtests, property runs) only the ledger is kept. */
  readonly chain?: ChainReader;
  /** Appends a ledger checkpoint to the journal. */
  readonly append: (record: Pick<LedgerRecord, 'markets' | 'balances'>) => void;
  /** The block time up to which every order event has been seen (the engine's events cursor). */
  readonly horizon: () => number;
  /** Default DEFAULT_ACCOUNT_READ_MS. */
  readonly periodMs?: number;
}

/** A balance disagreement found on start. */
export interface BalanceDisagreement {
  readonly token: Address;
  readonly symbol: string;
  /** Raw units the chain shows (free + locked by open orders). */
  readonly chain: bigint;
  /** Raw units the journal's checkpoint and the fills since say. */
  readonly expected: bigint;
}

function checkpointOf(market: LedgerRecord['markets'][number]): LedgerCheckpoint {
  return {
    position: { size: BigInt(market.position), basis: BigInt(market.costBasis), realized: BigInt(market.realizedPnl) },
    fees: BigInt(market.fees),
    fills: market.fills,
    throughMs: market.throughMs,
    recent: new Map(market.recent.map(({ key, timeMs }) => [key, timeMs])),
  };
}

/**
 * @example
 * const truth = new AccountTruth({ clock, logger }, { accountId, markets, portfolio, chain, append, horizon });
 * const fromMs = truth.restore(journal.restored.ledger); // read order events from here
 * await truth.start(); // after the first poll
 * truth.stop();
 */
export class AccountTruth {
  readonly #context: AccountTruthContext;
  readonly #params: AccountTruthParameters;
  readonly #tokens: ReadonlyMap<Address, string>;
  #restored: LedgerRecord | undefined;
  #lastWritten: string | undefined;
  #timer: Subscription | undefined;
  #reading: Promise<void> | undefined;
  #stopped = false;
  /** Disagreements the first read found (empty: none, or not read). */
  disagreements: readonly BalanceDisagreement[] = [];

  constructor(context: AccountTruthContext, params: AccountTruthParameters) {
    this.#context = context;
    this.#params = params;
    const tokens = new Map<Address, string>();
    for (const spec of params.markets) {
      tokens.set(spec.baseToken.address, spec.baseToken.symbol);
      tokens.set(spec.quoteToken.address, spec.quoteToken.symbol);
    }
    this.#tokens = tokens;
  }

  /**
   * Carries the checkpoint's ledger into the portfolio; returns the earliest horizon of the markets
   * it holds (read order events from there), or undefined without one.
   */
  restore(record: LedgerRecord | undefined): number | undefined {
    this.#restored = record;
    if (record === undefined) return undefined;
    this.#lastWritten = JSON.stringify({ markets: record.markets, balances: record.balances });
    let earliest: number | undefined;
    for (const market of record.markets) {
      if (!this.#params.markets.some((spec) => spec.address === market.market)) continue;
      this.#params.portfolio.carry(market.market, checkpointOf(market));
      earliest = earliest === undefined ? market.throughMs : Math.min(earliest, market.throughMs);
    }
    return earliest;
  }

  /**
   * The first chain read with the slot views, then the period. Resolves when trading may begin: at
   * once on a new journal (the reads come in meanwhile: nothing to compare them with), after the
   * first read on a restart (its balances are compared with the checkpoint's before anything new
   * trades and moves them). Never rejects.
   */
  start(): Promise<void> {
    const first = (async () => {
      await this.#read(true);
      await this.#readSlots();
      this.#reading = undefined;
      if (this.#stopped) return;
      this.#checkpoint();
      this.#schedule();
    })();
    this.#reading = first;
    return (this.#restored?.balances.length ?? 0) > 0 ? first : Promise.resolve();
  }

  /** Writes a last checkpoint; no more reads. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#timer?.unsubscribe();
    this.#checkpoint();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#context.clock.scheduler.schedule(() => {
      this.#reading = this.#read(false)
        .then(() => this.#readSlots())
        .then(() => {
          if (!this.#stopped) this.#checkpoint();
        })
        .finally(() => {
          this.#reading = undefined;
          this.#schedule();
        });
    }, this.#params.periodMs ?? DEFAULT_ACCOUNT_READ_MS);
  }

  /** The read in progress, if any (the engine's stop waits for it; the first one too). */
  get reading(): Promise<void> | undefined {
    return this.#reading;
  }

  async #read(first: boolean): Promise<void> {
    const { chain, accountId, portfolio } = this.#params;
    if (chain === undefined) return;
    // With a request of ours in flight the open orders the portfolio knows may not be what the chain
    // locks: the period's read waits for the next period (a restart's first read comes before any
    // trading; a new journal's has nothing to be compared with).
    if (!first && this.#params.markets.some((spec) => portfolio.state(spec.address).pendingRequests > 0)) return;
    // The blocks up to the one before the read hold every fill of a block time up to asOf, and
    // nothing later: a read during which no block came is the balances as of asOf. One a block
    // interrupted could hold that block's fills twice (read, and added after asOf): read again.
    let asOf = 0;
    const frees = new Map<Address, bigint>();
    try {
      for (let attempt = 1; ; attempt++) {
        asOf = this.#context.clock.now();
        const before = await chain.blockNumber();
        const read = await Promise.all([...this.#tokens.keys()].map(async (token) => [token, await chain.freeBalance(accountId, token)] as const));
        const whole = (await chain.blockNumber()) === before;
        if (this.#stopped) return;
        if (!whole && attempt < BALANCE_READ_ATTEMPTS) continue;
        // Every attempt interrupted: a period's read waits for the next period; a first read is kept
        // (nothing of this run has traded yet, and a restart trades only after it).
        if (!whole && !first) return;
        for (const [token, free] of read) frees.set(token, free);
        break;
      }
    } catch (error) {
      this.#context.logger.warn({ err: error }, 'the account balances could not be read from the chain');
      return;
    }
    const found: BalanceDisagreement[] = [];
    for (const [token, symbol] of this.#tokens) {
      const total = frees.get(token)! + this.#locked(token);
      if (first) {
        const expected = this.#expected(token);
        if (expected !== undefined && expected !== total) found.push({ token, symbol, chain: total, expected });
      }
      // The same total as the portfolio's: nothing to move (a new baseline would wake every strategy for nothing).
      if (portfolio.balance(token)?.total !== total) portfolio.setBalance(token, total, asOf);
    }
    if (!first) return;
    this.disagreements = found;
    for (const each of found) {
      this.#context.logger.warn(
        { token: each.token, chain: each.chain.toString(), expected: each.expected.toString(), difference: (each.chain - each.expected).toString() },
        `the account's ${each.symbol} balance on the chain (${each.chain} raw units) is not what the journal's last checkpoint and the fills since say (${each.expected}): a deposit, a withdrawal or another bot trading this account`,
      );
    }
  }

  /** The chain's slot view of each market: the slots of settled orders come from it (Portfolio.adoptSlotView). */
  async #readSlots(): Promise<void> {
    const { chain, accountId, portfolio, markets } = this.#params;
    if (chain === undefined) return;
    for (const spec of markets) {
      try {
        const { adopted, corrected, differing } = portfolio.adoptSlotView(spec.address, await chain.slotOrderIds(accountId, spec.address));
        if (adopted > 0) this.#context.logger.info({ market: spec.address, adopted }, `${adopted} open order(s) of ${spec.symbol} placed by no request of this run: their slots come from the chain`);
        if (corrected > 0) this.#context.logger.warn({ market: spec.address, corrected }, `${corrected} order(s) of ${spec.symbol} hold other slots on the chain than inferred: taken from the chain`);
        if (differing > 0) this.#context.logger.debug({ market: spec.address, differing }, `${differing} slot(s) of ${spec.symbol} differ from the replay of placements still settling`);
      } catch (error) {
        this.#context.logger.warn({ err: error, market: spec.address }, 'the maker slots could not be read from the chain');
      }
    }
  }

  /** Raw units of `token` the portfolio's open orders lock. */
  #locked(token: Address): bigint {
    let locked = 0n;
    for (const spec of this.#params.markets) {
      const state = this.#params.portfolio.state(spec.address);
      if (spec.baseToken.address === token) locked += state.locked.base;
      if (spec.quoteToken.address === token) locked += state.locked.quote;
    }
    return locked;
  }

  /** The checkpoint's balance of `token` moved by this run's fills (all after its horizon); undefined without one. */
  #expected(token: Address): bigint | undefined {
    const recorded = this.#restored?.balances.find((balance) => balance.token === token);
    if (recorded === undefined) return undefined;
    let total = BigInt(recorded.total);
    for (const spec of this.#params.markets) {
      const { flows } = this.#params.portfolio.state(spec.address);
      if (spec.baseToken.address === token) total += flows.base;
      if (spec.quoteToken.address === token) total += flows.quote;
    }
    return total;
  }

  #checkpoint(): void {
    const { portfolio, markets } = this.#params;
    const horizon = this.#params.horizon();
    const ledgers: LedgerRecord['markets'][number][] = markets.map((spec) => {
      const ledger = portfolio.ledger(spec.address, horizon);
      return {
        market: spec.address,
        position: ledger.position.size.toString(),
        costBasis: ledger.position.basis.toString(),
        realizedPnl: ledger.position.realized.toString(),
        fees: ledger.fees.toString(),
        fills: ledger.fills,
        throughMs: ledger.throughMs,
        recent: [...ledger.recent].map(([key, timeMs]) => ({ key, timeMs })),
      };
    });
    // Markets and tokens of the journal's account that this run does not trade keep what they had.
    const restored = this.#restored;
    for (const market of restored?.markets ?? []) if (!ledgers.some((ledger) => ledger.market === market.market)) ledgers.push(market);
    const balances: { token: Address; total: string }[] = [];
    for (const token of this.#tokens.keys()) {
      // The balance with every fill the ledger counts (those after the horizon too).
      const total = portfolio.balance(token)?.total;
      if (total !== undefined && total >= 0n) balances.push({ token, total: total.toString() });
    }
    for (const balance of restored?.balances ?? []) if (!this.#tokens.has(balance.token)) balances.push(balance);
    const record = { markets: ledgers, balances };
    const text = JSON.stringify(record);
    if (text === this.#lastWritten) return;
    try {
      this.#params.append(record);
      this.#lastWritten = text;
    } catch (error) {
      this.#context.logger.warn({ err: error }, 'the ledger checkpoint could not be written to the journal');
    }
  }
}
