/**
 * A small quoting strategy, correct by default, with switches that plant one bug each: the kit's
 * property runner must find every planted bug, name the invariant it breaks and shrink the scenario,
 * and must never flag the correct quoter.
 *
 * The correct quoter joins the best bid and ask (post-only, slots 0 and 1) with `size`, quotes no bid
 * once a fill of it and of the bid resting now would take the position past `maxPosition` (its view of
 * the position lags the venue by the fills not reported yet; no ask likewise), cancels its quotes while
 * the feed is stale, keeps one request in flight at a time, and stops quoting for good once the
 * engine halts.
 */
import { combineLatest, distinctUntilChanged, filter, map, merge, mergeMap, Observable, of, take, timer } from 'rxjs';
import { defineStrategy, toUnits, z, type Intent, type PackedOp, type StrategyContext } from 'clobbot';

export interface QuoterBugs {
  /** Quotes whatever its position (no inventory limit). */
  readonly ignoresInventory?: boolean;
  /** Prices rounded to 4 decimals as a JS number, not to the market's tick. */
  readonly offTick?: boolean;
  /** Puts its bid and its ask in one slot. */
  readonly reusesSlot?: boolean;
  /** Never looks at the engine's trading state: keeps quoting after the kill switch. */
  readonly ignoresHalt?: boolean;
  /** Bids a tick above its own ask. */
  readonly crossesItself?: boolean;
  /** Keeps its quotes resting when the feed goes stale. */
  readonly ignoresStaleFeed?: boolean;
  /** Sizes each quote at half the size shown at the best level (below the minimum on thin books). */
  readonly sizesFromBook?: boolean;
  /** Stops when halted, but quotes again 5 s later. */
  readonly resumesAfterHalt?: boolean;
}

const params = z.strictObject({
  /** Base size of each quote (human decimal). */
  size: z.string(),
  /** Largest absolute position (human decimal). */
  maxPosition: z.string(),
});
type Params = z.output<typeof params>;
/** The quoter's params schema (for typed check options). */
export type QuoterParams = typeof params;

interface Quote {
  readonly bid: { price: bigint; size: bigint } | undefined;
  readonly ask: { price: bigint; size: bigint } | undefined;
}


export function plantedQuoter(name: string, bugs: QuoterBugs = {}) {
  return defineStrategy({
    name,
    params,
    create(ctx: StrategyContext<Params>): Observable<Intent> {
      const [market] = ctx.markets.values();
      const spec = market!.spec;
      // Within the market's sizes whatever its precision: a quote never below the minimum.
      const wanted = toUnits(ctx.params.size, spec.sizePrecision, 'down');
      const size = wanted < spec.minSize ? spec.minSize : wanted > spec.maxSize ? spec.maxSize : wanted;
      const maxPosition = toUnits(ctx.params.maxPosition, spec.sizePrecision, 'down');
      // The bug: prices to 4 decimals as a JS number (bids down, asks up), whatever the market's tick.
      const price = (units: bigint, side: 'BUY' | 'SELL') => {
        if (!bugs.offTick) return units;
        const scaled = (Number(units) / Number(spec.pricePrecision)) * 1e4;
        return toUnits(((side === 'BUY' ? Math.floor(scaled) : Math.ceil(scaled)) / 1e4).toFixed(4), spec.pricePrecision, 'down');
      };
      const stale$ = market!.feed.health$.pipe(
        map((health) => health.depth.status === 'stale'),
        distinctUntilChanged(),
      );
      const quotes$ = combineLatest([market!.feed.bbo$, market!.state$, bugs.ignoresStaleFeed ? of(false) : stale$]).pipe(
        map(([bbo, state, stale]) => {
          const quote = ((): Quote => {
            if (stale || bbo.bid === undefined || bbo.ask === undefined) return { bid: undefined, ask: undefined };
            const bidSize = bugs.sizesFromBook ? bbo.bid.size / 2n : size;
            const askSize = bugs.sizesFromBook ? bbo.ask.size / 2n : size;
            // Within the limit even if the order resting now fills unseen before its replacement
            // lands: fills reach the engine (and this position) a few seconds after their block.
            const bidAllowed = bugs.ignoresInventory || state.position + 2n * bidSize <= maxPosition;
            const askAllowed = bugs.ignoresInventory || state.position - 2n * askSize >= -maxPosition;
            const bidPrice = bugs.crossesItself ? bbo.ask.price + spec.tickSize : bbo.bid.price;
            return {
              bid: bidAllowed ? { price: price(bidPrice, 'BUY'), size: bidSize } : undefined,
              ask: askAllowed ? { price: price(bbo.ask.price, 'SELL'), size: askSize } : undefined,
            };
          })();
          // What to change, against what the engine says rests in each slot (a cancel that missed
          // an order the engine learnt late is sent again once it shows).
          const askSlot = bugs.reusesSlot ? 0 : 1;
          const ops: PackedOp[] = [];
          for (const [slot, side, wanted] of [[0, 'BUY', quote.bid], [askSlot, 'SELL', quote.ask]] as const) {
            const resting = state.slots[slot] ?? null;
            if (wanted === undefined) {
              if (resting !== null) ops.push({ slotIdx: slot, kind: 'cancel' });
            } else if (resting === null || resting.side !== side || resting.price !== wanted.price || resting.remaining !== wanted.size) {
              ops.push({ slotIdx: slot, kind: 'place', side, postOnly: !bugs.crossesItself, price: wanted.price, size: wanted.size, minSizeAfterBlock: 0n });
            }
          }
          // One request at a time: the next is planned on the state its outcome leaves (and one that
          // failed is asked again, since the state still differs from what is wanted).
          return state.pendingRequests > 0 ? [] : ops;
        }),
        filter((ops) => ops.length > 0),
        map((ops): Intent => ({ type: 'ReplaceSlots', market: spec.address, purpose: 'quotes', ops })),
      );
      if (bugs.ignoresHalt) return quotes$;
      const halted$ = ctx.tradingState$.pipe(
        filter((state) => state.state === 'HALTED'),
        take(1),
      );
      // Quotes until the engine halts; the kill switch cancels what rests.
      const untilHalted$ = new Observable<Intent>((subscriber) => {
        let halted = false;
        const haltWatch = halted$.subscribe(() => (halted = true));
        const quoting = quotes$.pipe(filter(() => !halted)).subscribe(subscriber);
        return () => {
          haltWatch.unsubscribe();
          quoting.unsubscribe();
        };
      });
      if (!bugs.resumesAfterHalt) return untilHalted$;
      return merge(untilHalted$, halted$.pipe(mergeMap(() => timer(5_000, ctx.clock.scheduler)), mergeMap(() => quotes$)));
    },
  });
}
