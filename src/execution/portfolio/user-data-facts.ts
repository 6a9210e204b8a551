/**
 * The user-data API's records read as facts of one market: order events (created, canceled,
 * trade) and the entries of active-order snapshots, checked against the market spec, put in the
 * market's units, and handed to its order registry and fill ledger.
 *
 * Denomination (spec rules): sizes (`size`, `filledSize`, `updatedSize`, `remainingSize`) are
 * size-precision units and prices of created/canceled orders price-precision units, both kept as
 * they are; `fillPrice` is 1e18 fixed point, so a fill's raw quote amount is
 * `floor(fillPrice * filledSize * 10^quoteDecimals / (1e18 * sizePrecision))` (equal to the
 * venue's `quoteRaw` when the price is on the grid); `baseFilled` is raw base-token units, base
 * terms whatever the side. An event whose precisions or tokens differ from the market spec is
 * ignored (reported as such): its units cannot be trusted.
 *
 * Separate from the portfolio because it is the wire's edge: the portfolio routes each record to
 * its market and derives the state; this reads one record.
 */
import type { OrderSide } from '../../protocol/constants.ts';
import type { Hex } from '../../protocol/encoding.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { ActiveOrder, OrderEvent } from '../../protocol/user-data.ts';
import { fillKey, type FillFacts, type FillLedger, type FillRecord } from './fill-ledger.ts';
import type { OrderRegistry } from './order-registry.ts';

/** What became of one applied event or snapshot entry. */
export type ApplyResult =
  | { readonly status: 'applied' }
  | { readonly status: 'duplicate' }
  | { readonly status: 'ignored'; readonly reason: 'unknown-market' | 'spec-mismatch' };

/** The parts of one market that its user-data records change. */
export interface MarketFacts {
  readonly spec: MarketSpec;
  readonly registry: OrderRegistry;
  readonly ledger: FillLedger;
}

/** 1e18: fillPrice (rule 4). */
const FIXED18 = 10n ** 18n;

/** Whether `event`'s precisions and tokens are those of `spec`. */
export function matchesSpec(spec: MarketSpec, event: OrderEvent): boolean {
  const data = event.eventData;
  return (
    BigInt(data.sizePrecision) === spec.sizePrecision &&
    BigInt(data.pricePrecision) === spec.pricePrecision &&
    data.baseToken.address === spec.baseToken.address &&
    data.quoteToken.address === spec.quoteToken.address &&
    data.baseToken.decimal === spec.baseToken.decimals &&
    data.quoteToken.decimal === spec.quoteToken.decimals
  );
}

/**
 * Applies an order event of `market` (checked with `matchesSpec`) at its block time `at`; a fill
 * new to the ledger joins `newFills`.
 */
export function recordOrderEvent(market: MarketFacts, event: OrderEvent, at: number, newFills: FillRecord[]): ApplyResult {
  const { spec, registry, ledger } = market;
  const tx = event.transactionHash;
  const orderId = BigInt(event.eventData.orderId);
  const side: OrderSide = event.eventData.isBuy ? 'BUY' : 'SELL';
  if (event.eventType === 'order-created') registry.forgetReusedId(orderId, tx);
  if (registry.isRetired(orderId) && event.eventType !== 'trade') return { status: 'duplicate' };
  switch (event.eventType) {
    case 'order-created': {
      const data = event.eventData;
      const fresh = registry.created(orderId, { side, price: BigInt(data.price), size: BigInt(data.size) }, tx, at);
      return fresh ? { status: 'applied' } : { status: 'duplicate' };
    }
    case 'order-canceled': {
      const data = event.eventData;
      const fresh = registry.canceled(orderId, { side, price: BigInt(data.price), size: BigInt(data.size) }, tx, at, BigInt(data.remainingSize));
      return fresh ? { status: 'applied' } : { status: 'duplicate' };
    }
    case 'trade': {
      const data = event.eventData;
      const key = fillKey(tx, orderId, data.filledSize, data.updatedSize);
      if (ledger.has(key)) return { status: 'duplicate' };
      const size = BigInt(data.filledSize);
      const fillPrice = BigInt(data.fillPrice);
      const fill: FillFacts = {
        key,
        market: spec.address,
        orderId,
        transactionHash: tx,
        timeMs: at,
        side,
        size,
        fillPrice,
        price: (fillPrice * spec.pricePrecision) / FIXED18,
        quote: (fillPrice * size * 10n ** BigInt(spec.quoteToken.decimals)) / (FIXED18 * spec.sizePrecision),
        base: BigInt(data.baseFilled),
        remaining: BigInt(data.updatedSize),
      };
      const liquidity = registry.traded(fill, BigInt(data.orderSize));
      if (!ledger.countedBefore(key, at)) newFills.push(ledger.add(fill, liquidity));
      return { status: 'applied' };
    }
  }
}

/** Applies an entry of an active-orders snapshot of `market`; a live order's id joins `ids`, its transaction `txs`. */
export function recordActiveOrder(market: MarketFacts, order: ActiveOrder, ids: Set<bigint>, txs: Set<Hex>): ApplyResult {
  const { spec, registry } = market;
  if (order.marketaddress !== spec.address) return { status: 'ignored', reason: 'unknown-market' };
  if (BigInt(order.sizeprecision) !== spec.sizePrecision || BigInt(order.priceprecision) !== spec.pricePrecision) {
    return { status: 'ignored', reason: 'spec-mismatch' };
  }
  if (order.iscanceled) return { status: 'applied' };
  const orderId = BigInt(order.orderid);
  registry.forgetReusedId(orderId, order.transactionhash);
  if (registry.isRetired(orderId)) return { status: 'duplicate' };
  ids.add(orderId);
  txs.add(order.transactionhash);
  const terms = { side: order.isbuy ? 'BUY' : 'SELL', price: BigInt(order.price), size: BigInt(order.size) } as const;
  const createdAt = Date.parse(order.triggertime);
  const changed = registry.listed(orderId, terms, BigInt(order.remainingsize), order.transactionhash, Number.isNaN(createdAt) ? undefined : createdAt);
  return changed ? { status: 'applied' } : { status: 'duplicate' };
}
