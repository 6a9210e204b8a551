/**
 * `accountingInvariant`: the engine's books agree with its fills. Per market, over the opening fills and the
 * run's: every fill's fee is not negative and is its liquidity's rate of its quote amount (floored,
 * as the venue charges); at the end the engine's position is the sum of the signed fill sizes (buys
 * +, sells −), its fees the sum of the fills' fees, and its realized PnL what average-cost
 * accountingInvariant of the fills gives, recomputed here from the rule (docs: src/execution/average-cost.ts):
 *
 * - a fill from flat or on the position's side opens: the size grows and its quote amount joins the
 *   cost (a sale that opens a short adds minus what it brought in: a short's cost is negative);
 * - a fill against the position closes min(its size, |position|) first: that share of the cost is
 *   released, `cost × closed / |position|` truncated toward zero, and the realized PnL grows by
 *   what closing brought in less what it cost (a sale: its quote share less the released cost; a
 *   buy: minus the released cost less its quote share); a quote amount split between closing and
 *   opening goes by size, floored, the rest of the fill opening at its price.
 *
 * Quote amounts are raw quote-token units of `price × size` (floored), bigint throughout; realized
 * PnL is gross of fees, so `cash + position × mark = equity` follows from these three. Why: PnL
 * and position are what the strategy and the kill switch's drawdown act on.
 */
import { amountScale, feeRaw, quoteRaw, type MarketSpec } from '../../protocol/market-spec.ts';
import type { OwnFill } from '../../strategy/strategy-context.ts';
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, FirstFinding, type InvariantFinding } from './invariant.ts';
import { describeFill, fillAt, fillsInOrder } from './record-queries.ts';

interface Books {
  /** Size units, signed. */
  readonly size: bigint;
  /** Raw quote units, the sign of `size`. */
  readonly cost: bigint;
  /** Raw quote units. */
  readonly realized: bigint;
}

const abs = (value: bigint): bigint => (value < 0n ? -value : value);

/** The books after one fill whose quote amount is `quote`. */
function book(books: Books, fill: OwnFill, quote: bigint): Books {
  const buy = fill.side === 'BUY';
  const moved = buy ? fill.size : -fill.size;
  if (books.size === 0n || books.size > 0n === buy) return { size: books.size + moved, cost: books.cost + (buy ? quote : -quote), realized: books.realized };
  const open = abs(books.size);
  const closed = fill.size < open ? fill.size : open;
  const costReleased = (books.cost * closed) / open;
  const quoteOfClose = closed === fill.size ? quote : (quote * closed) / fill.size;
  const broughtIn = buy ? -costReleased : quoteOfClose;
  const paid = buy ? quoteOfClose : costReleased;
  const rest = quote - quoteOfClose;
  const opened = closed < fill.size ? (buy ? rest : -rest) : 0n;
  return { size: books.size + moved, cost: books.cost - costReleased + opened, realized: books.realized + broughtIn - paid };
}

function checkMarket(record: RunRecord, spec: MarketSpec, end: number, first: FirstFinding): void {
  const scale = amountScale(spec);
  const quoteUnits = `raw ${spec.quoteToken.symbol} units`;
  const fills = fillsInOrder([...record.openingFills, ...record.fills], spec.address);
  let books: Books = { size: 0n, cost: 0n, realized: 0n };
  let fees = 0n;
  for (const fill of fills) {
    const quote = quoteRaw(scale, fill.price, fill.size);
    const expected = feeRaw(quote, fill.liquidity === 'taker' ? spec.takerFeePps : spec.makerFeePps);
    if (fill.fee !== expected) {
      first.offer({
        at: fillAt(record, fill),
        message: `${spec.symbol}: ${describeFill(record, fill)} paid a fee of ${fill.fee} ${quoteUnits}${fill.fee < 0n ? ', a negative fee,' : ''} where its ${fill.liquidity} rate on ${quote} gives ${expected}`,
        details: { market: spec.symbol, orderId: fill.orderId.toString(), fee: fill.fee.toString(), expected: expected.toString(), liquidity: fill.liquidity },
      });
      return;
    }
    books = book(books, fill, quote);
    fees += fill.fee;
  }
  const state = record.finalStates.get(spec.symbol);
  if (state === undefined) return;
  const mismatch = (what: string, reported: bigint, computed: bigint, how: string) =>
    first.offer({
      at: end,
      message: `${spec.symbol}: the engine reports ${what} ${reported}, but ${how} gives ${computed} (${fills.length} fills, ${record.openingFills.length > 0 ? 'opening fills included' : 'from flat'})`,
      details: { market: spec.symbol, what, reported: reported.toString(), computed: computed.toString(), fills: fills.length },
    });
  if (state.position !== books.size) mismatch('position', state.position, books.size, 'the sum of signed fill sizes (size units)');
  else if (state.fees !== fees) mismatch('fees', state.fees, fees, `the sum of the fills' fees (${quoteUnits})`);
  else if (state.realizedPnl !== books.realized) mismatch('realized PnL', state.realizedPnl, books.realized, `average cost over the fills (${quoteUnits})`);
}

function check(record: RunRecord): InvariantFinding | undefined {
  const first = new FirstFinding();
  let end = record.durationMs;
  for (const states of record.states.values()) end = Math.max(end, states[states.length - 1]?.at ?? end);
  for (const spec of record.markets.values()) checkMarket(record, spec, end, first);
  return first.first;
}

export const accountingInvariant = defineInvariant(
  'accounting',
  'Position = Σ signed fill sizes, fees = Σ fill fees (never negative, at the fill’s liquidity rate), realized PnL = average cost over the fills, as the engine reports them.',
  check,
);
