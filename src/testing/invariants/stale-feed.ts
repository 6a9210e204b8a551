/**
 * `stale-feed`: while a market's feed is stale (as the strategy saw it), none of its own orders,
 * resting already or placed since, rests more than `staleBlocks` blocks (default 3) after the feed
 * went stale: the venue executed the cancels within that many blocks, so the own state shows no
 * resting order from the next block on, for as long as the feed stays stale. Skipped for a
 * strategy that quotes blind on purpose (`quotesBlind`). Why: quotes priced on a book that no
 * longer updates are free options to whoever sees the real market.
 */
import type { RunRecord } from '../run-record.ts';
import { DEFAULT_STALE_BLOCKS, defineInvariant, FirstFinding, type InvariantFinding, type InvariantOptions } from './invariant.ts';
import { describeOrder, lateOrders } from './record-queries.ts';

/** The spans `[from, until)` during which `symbol`'s feed was stale. */
function staleSpans(record: RunRecord, symbol: string): { readonly from: number; readonly until: number }[] {
  const spans: { from: number; until: number }[] = [];
  let from: number | undefined;
  for (const change of [...record.feedHealth].sort((a, b) => a.at - b.at)) {
    if (change.symbol !== symbol) continue;
    if (change.stale && from === undefined) from = change.at;
    else if (!change.stale && from !== undefined) {
      spans.push({ from, until: change.at });
      from = undefined;
    }
  }
  if (from !== undefined) spans.push({ from, until: Infinity });
  return spans;
}

function check(record: RunRecord, options: InvariantOptions): InvariantFinding | undefined {
  if (options.quotesBlind === true) return undefined;
  const blocks = options.staleBlocks ?? DEFAULT_STALE_BLOCKS;
  const first = new FirstFinding();
  for (const symbol of record.markets.keys()) {
    for (const span of staleSpans(record, symbol)) {
      const late = lateOrders(record, symbol, span.from, blocks + 1, span.until, options.faultGraceMs);
      if (late === undefined) continue;
      const { at, deadline, orders } = late;
      first.offer({
        at,
        message:
          `${symbol}'s feed went stale at ${span.from} ms and stayed stale; ${blocks} block(s) later (from ${deadline} ms) no order may rest, ` +
          `yet at ${at} ms it still has ${orders.length}: ${orders.map(describeOrder).join(', ')}`,
        details: { market: symbol, staleFrom: span.from, deadline, orders: orders.length },
      });
      break;
    }
  }
  return first.first;
}

export const staleFeedInvariant = defineInvariant(
  'stale-feed',
  'Unless the strategy quotes blind, no own order rests more than staleBlocks blocks after its market’s feed went stale and stayed stale.',
  check,
);
