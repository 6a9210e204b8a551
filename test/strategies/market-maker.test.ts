import { writeFileSync } from 'node:fs';
import { BehaviorSubject, NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLogger, MAKER_SLOTS, OrderBook, type Intent, type OrderBookView, type OwnMarketState, type OwnOrder, type ReplaceSlots, type StrategyContext, type TradingState } from 'clobbot';
import { checkStrategy, createStrategyHarness, seededRandom, VirtualClock } from 'clobbot/testing';
import marketMaker, { marketMakerParams, type MarketMakerParams } from '../../strategies/market-maker.ts';
import { book, monUsdc, wethUsdc } from './fixtures.ts';
import { haltedBy, placesAnything, withKillFile } from './halt-support.ts';

/** config/market-maker.yaml's params. */
const params = {
  levels: 3,
  spreadBps: 20,
  levelSpacingBps: 10,
  size: '2000',
  priceSource: 'mid',
  targetInventory: '0',
  maxInventory: '40000',
  skewBps: 15,
  requoteThresholdBps: 4,
} as const;

const SIZE = 200_000n; // 2000 MON in 0.01 units

function quotes(state: OwnMarketState) {
  const prices = (side: 'BUY' | 'SELL') =>
    state.orders
      .filter((order) => order.side === side)
      .map((order) => order.price)
      .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return { bids: prices('BUY'), asks: prices('SELL').reverse() };
}

/**
 * The scripted books here are tight (two ticks around the mid), so the strategy's own quotes rest
 * behind the script's best prices: the venue's depth holds the own orders too, and a quote inside the
 * script's spread would become the best price the strategy itself reads its mid from.
 */
const tight = (mid: string) => {
  const units = BigInt(Math.round(Number(mid) * 1e7));
  const text = (value: bigint) => (Number(value) / 1e7).toFixed(7);
  return book(text(units - 100n), text(units + 100n));
};

describe('market-maker', () => {
  it('quotes both sides around the mid at the configured spreads, in one packed replacement', async () => {
    const result = await checkStrategy(marketMaker, { params, markets: [{ spec: monUsdc, books: [{ at: 0, ...tight('0.035') }] }], until: 3_000 });
    // mid 0.035 = 350000 units; levels at 20, 30, 40 bps, bids rounded down and asks up to the tick of 10.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_300n, 348_950n, 348_600n], asks: [350_700n, 351_050n, 351_400n] });
    expect(result.states.get('MON_USDC')!.orders.every((order) => order.size === SIZE && order.remaining === SIZE)).toBe(true);
    expect(result.intents).toHaveLength(1);
    const intent = result.intents[0]!.intent as ReplaceSlots;
    expect(result.intents[0]!.at).toBe(0);
    expect(intent.type).toBe('ReplaceSlots');
    expect(intent.ops.map((op) => op.slotIdx)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(intent.ops.every((op) => op.kind === 'place' && op.postOnly)).toBe(true);
    expect(result.reverted).toEqual([]);
  });

  it('quotes around the microprice when asked', async () => {
    // Bid 0.03499 x 1000, ask 0.03501 x 3000: the microprice leans to the bid (0.034995).
    const skewedBook = { bids: [[349_900n, 100_000n]] as const, asks: [[350_100n, 300_000n]] as const };
    const result = await checkStrategy(marketMaker, {
      params: { ...params, levels: 1, priceSource: 'microprice' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...skewedBook }] }],
      until: 3_000,
    });
    // 349950 x 0.998 = 349250.1 -> 349250; x 1.002 = 350649.9 -> 350650.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_250n], asks: [350_650n] });
  });

  it('does not requote while the quotes stay within the threshold, and requotes past it', async () => {
    const result = await checkStrategy(marketMaker, {
      params,
      markets: [
        {
          spec: monUsdc,
          books: [
            { at: 0, ...tight('0.035') },
            // mid 0.035007: 0.2 bp away, under the 4 bp threshold.
            { at: 5_000, ...tight('0.035007') },
            // mid 0.03502: about 5.7 bp, past it.
            { at: 10_000, ...tight('0.03502') },
          ],
        },
      ],
      until: 15_000,
    });
    expect(result.intentsBetween(0, 1)).toHaveLength(1);
    expect(result.intentsBetween(1, 10_000)).toEqual([]);
    // The new book reaches the strategy once its block is committed and polled: a few blocks later.
    const requote = result.intentsBetween(10_000, 15_000);
    expect(requote).toHaveLength(1);
    // Wanted now: bids 349490, 349140, 348790; asks 350910, 351260, 351610. The asks resting at 351050
    // and 351400 are within 4 bp of 350910 and 351260, so they stay; the other four orders are replaced
    // in their own slots.
    expect((requote[0] as ReplaceSlots).ops).toHaveLength(4);
    expect((requote[0] as ReplaceSlots).ops.every((op) => op.kind === 'place')).toBe(true);
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_490n, 349_140n, 348_790n], asks: [351_050n, 351_400n, 351_610n] });
    expect(result.reverted).toEqual([]);
  });

  it('skews its quotes toward the target as inventory builds up', async () => {
    // 20000 MON long, target 0, max 40000: half-way, so the quotes shift down by 7.5 bp.
    const result = await checkStrategy(marketMaker, {
      params: { ...params, levels: 1 },
      markets: [{ spec: monUsdc, position: 2_000_000n, books: [{ at: 0, ...tight('0.035') }] }],
      until: 3_000,
    });
    // center 350000 x (1 - 0.00075) = 349737.5; bid x 0.998 = 349038.0 -> 349030; ask x 1.002 = 350437.0 -> 350440.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_030n], asks: [350_440n] });
    expect(result.states.get('MON_USDC')!.position).toBe(2_000_000n);
  });

  it('skews after its own fills: a filled bid moves both quotes down', async () => {
    const run = await createStrategyHarness(marketMaker, {
      params: { ...params, levels: 1, maxInventory: '4000', requoteThresholdBps: 0 },
      markets: [{ spec: monUsdc, book: tight('0.035') }],
    }).start();
    await run.waitFor(() => run.state().orders.length === 2);
    const before = quotes(run.state());
    const bidSlot = run.state().orders.find((order) => order.side === 'BUY')!.slot!;
    await run.advanceBy(1_000);
    await run.fill(bidSlot); // +2000 MON: half of maxInventory -> 7.5 bp lower
    expect(run.state().position).toBe(SIZE);
    // The requote: the filled bid's slot and the ask's, in one packed replacement.
    await run.waitFor(() => run.state().pendingRequests === 0 && quotes(run.state()).bids.length === 1 && quotes(run.state()).asks[0] !== before.asks[0]);
    const after = quotes(run.state());
    expect(after.bids[0]).toBeLessThan(before.bids[0]!);
    expect(after.asks[0]).toBeLessThan(before.asks[0]!);
    expect(after).toEqual({ bids: [349_030n], asks: [350_440n] });
    expect(run.fills.map((fill) => [fill.side, fill.price, fill.size, fill.liquidity, fill.fee])).toEqual([['BUY', before.bids[0], SIZE, 'maker', 0n]]);
    await run.stop();
  });

  it('stops quoting the side whose fills would take the position beyond maxInventory', async () => {
    const state = async (position: bigint) =>
      (await checkStrategy(marketMaker, { params, markets: [{ spec: monUsdc, position, books: [{ at: 0, ...tight('0.035') }] }], until: 3_000 })).states.get('MON_USDC')!;
    // 35000 MON long: two bid levels fit under 40000 (37000, 39000), the third would reach 41000.
    const long = quotes(await state(3_500_000n));
    expect(long.bids).toHaveLength(2);
    expect(long.asks).toHaveLength(3);
    // 39000 long: no bid at all; 39000 short: no ask at all.
    const longer = quotes(await state(3_900_000n));
    expect(longer.bids).toEqual([]);
    expect(longer.asks).toHaveLength(3);
    const short = quotes(await state(-3_900_000n));
    expect(short.asks).toEqual([]);
    expect(short.bids).toHaveLength(3);
  });

  it('pulls its quotes when the book loses a side, and never crosses the book', async () => {
    const result = await checkStrategy(marketMaker, {
      params: { ...params, skewBps: 5_000, spreadBps: 1, levelSpacingBps: 0, levels: 1 },
      markets: [
        {
          spec: monUsdc,
          position: 4_000_000n, // at max inventory: quotes shift 50 % down, far below the bid
          books: [
            { at: 0, ...book('0.0349', '0.0351') },
            { at: 3_000, bids: [], asks: [['0.0351', '100']] },
          ],
        },
      ],
      until: 8_000,
    });
    const first = result.stateAt(2_999);
    // No bid (max inventory); the ask is clamped one tick above the best bid instead of crossing it.
    expect(quotes(first)).toEqual({ bids: [], asks: [349_010n] });
    // Once the feed shows the script's bids gone, no mid: the ask is cancelled.
    expect(result.states.get('MON_USDC')!.orders).toEqual([]);
    expect(result.intents.map(({ intent }) => (intent as ReplaceSlots).ops.map((op) => op.kind))).toEqual([['place'], ['cancel']]);
    expect(result.reverted).toEqual([]);
  });

  it('quotes each of its markets', async () => {
    const result = await checkStrategy(marketMaker, {
      params: { ...params, levels: 1, size: '1' },
      markets: [
        { spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] },
        { spec: wethUsdc, books: [{ at: 0, bids: [['3000', '10']], asks: [['3001', '10']] }] },
      ],
    });
    expect(result.states.get('MON_USDC')!.orders).toHaveLength(2);
    // mid 3000.50 = 300050 cents: 300050 x 0.998 = 299449.9 -> 299449; x 1.002 = 300650.1 -> 300651.
    expect(quotes(result.states.get('WETH_USDC')!)).toEqual({ bids: [299_449n], asks: [300_651n] });
  });

  it('refuses a size below the market minimum as a config error', async () => {
    await expect(checkStrategy(marketMaker, { params: { ...params, size: '0.5' }, markets: [monUsdc] })).rejects.toThrow(/size 0.5 is outside MON_USDC/);
  });

  describe('while the trading state is HALTED', () => {
    it('kill switch: its quotes are all cancelled and it places nothing more, through book moves', async () => {
      await withKillFile(async (file) => {
        const halted = haltedBy(marketMaker);
        const run = await createStrategyHarness(halted.definition, { params, markets: [{ spec: monUsdc, book: tight('0.035') }], risk: { killSwitch: { file } } }).start();
        await run.waitFor(() => run.state().orders.length === 6 && run.state().pendingRequests === 0);
        writeFileSync(file, '');
        await run.waitFor(() => halted.at() !== undefined);
        expect(halted.states.at(-1)).toEqual({ state: 'HALTED', trigger: 'file', reason: `kill file ${file} exists` });
        // The book moves past the requote threshold twice: a quoting market maker would requote.
        await run.book(tight('0.03502'));
        await run.advanceBy(3_000);
        await run.book(tight('0.03498'));
        await run.advanceBy(5_000);
        expect(run.state().orders).toEqual([]);
        expect(run.state().pendingRequests).toBe(0);
        const after = run.intents.filter(({ at }) => at >= halted.at()! - run.startMs).map(({ intent }) => intent);
        expect(after.filter(placesAnything)).toEqual([]);
        // A requote would have been refused by the tripped kill switch; its own cancels may race the
        // engine's (a stale-slot revert, which the engine takes as news).
        expect(run.refused).toEqual([]);
        expect(run.reverted.every(({ code }) => code === 'EXPECTED_ORDER_ID_MISMATCH')).toBe(true);
        await run.stop();
      });
    });

    it('cancels its quotes itself (one packed replacement of cancels) at the next book, and places nothing until ACTIVE again', () => {
      const spec = monUsdc;
      let id = 0;
      const bookAt = (bid: bigint, ask: bigint): OrderBookView => OrderBook.fromLevels(spec, { lastUpdateId: ++id, bids: [{ price: bid, size: 10_000_000n }], asks: [{ price: ask, size: 10_000_000n }] });
      const empty: OwnMarketState = { market: spec.address, slots: Array.from({ length: MAKER_SLOTS }, () => null), orders: [], pendingRequests: 0, position: 0n, realizedPnl: 0n, fees: 0n };
      /** The state once an intent's place ops rest (order ids known). */
      const resting = (intent: ReplaceSlots): OwnMarketState => {
        const slots: (OwnOrder | null)[] = Array.from({ length: MAKER_SLOTS }, () => null);
        for (const op of intent.ops) {
          if (op.kind !== 'place') continue;
          slots[op.slotIdx] = { market: spec.address, orderId: BigInt(op.slotIdx + 1), slot: op.slotIdx, side: op.side, price: op.price, size: op.size, remaining: op.size };
        }
        return { ...empty, slots, orders: slots.filter((order): order is OwnOrder => order !== null) };
      };
      const book$ = new BehaviorSubject<OrderBookView>(bookAt(349_990n, 350_010n));
      const state$ = new BehaviorSubject<OwnMarketState>(empty);
      const tradingState$ = new BehaviorSubject<TradingState>({ state: 'ACTIVE' });
      const clock = new VirtualClock(Date.UTC(2026, 0, 1));
      const ctx: StrategyContext<MarketMakerParams> = {
        params: marketMakerParams.parse(params),
        markets: new Map([[spec.symbol, { spec, feed: { book$, bbo$: NEVER, mid$: NEVER, trades$: NEVER, ticker$: NEVER, klines$: NEVER, health$: NEVER }, state$, fills$: NEVER }]]),
        clock,
        random: seededRandom(1),
        logger: createLogger({ level: 'silent' }),
        tradingState$,
        fates$: NEVER,
        reportFigures: () => undefined,
      };
      const intents: Intent[] = [];
      const subscription = marketMaker.create(ctx).subscribe((intent) => intents.push(intent));
      expect(intents).toHaveLength(1);
      const placed = intents[0] as ReplaceSlots;
      state$.next(resting(placed));
      expect(intents).toHaveLength(1);

      // HALTED, and nothing cancels for it (no engine here): the next book pulls every quote.
      tradingState$.next({ state: 'HALTED', reason: 'test' });
      book$.next(bookAt(349_990n, 350_010n));
      expect(intents).toHaveLength(2);
      expect((intents[1] as ReplaceSlots).ops).toEqual(placed.ops.map((op) => ({ slotIdx: op.slotIdx, kind: 'cancel' })));
      state$.next(empty);
      book$.next(bookAt(350_490n, 350_510n));
      expect(intents).toHaveLength(2);

      // ACTIVE again: it quotes again at the next book.
      tradingState$.next({ state: 'ACTIVE' });
      book$.next(bookAt(350_490n, 350_510n));
      expect(intents).toHaveLength(3);
      expect((intents[2] as ReplaceSlots).ops.every((op) => op.kind === 'place')).toBe(true);
      subscription.unsubscribe();
    });
  });
});
