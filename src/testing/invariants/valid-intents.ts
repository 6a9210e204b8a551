/**
 * `valid-intents`: every intent the strategy emitted is one the engine and the venue accept for its
 * market: prices on the tick and within 1..0xFFFFFFFE, sizes within the market's min..max size (a
 * size in units is always on the lot), slots below 62 and none twice in one intent, post-only only
 * with GTC, not empty, a market of the strategy. The rules are the strategy host's own
 * (`intentShapeProblems`), applied again to every recorded intent; an intent the kit already found
 * malformed (`record.invalid`) is a violation too. Why: a malformed intent stops a live run.
 */
import type { Address } from '../../protocol/encoding.ts';
import { intentShapeProblems } from '../../runtime/strategy-host.ts';
import type { StrategyMarket } from '../../strategy/strategy-context.ts';
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, FirstFinding, type InvariantFinding } from './invariant.ts';
import { describeIntent } from './record-queries.ts';

/** The record's markets as the host's check takes them: it reads only each market's `spec`. */
function hostMarkets(record: RunRecord): ReadonlyMap<Address, StrategyMarket> {
  return new Map([...record.markets.values()].map((spec) => [spec.address.toLowerCase() as Address, { spec } as Pick<StrategyMarket, 'spec'> as StrategyMarket]));
}

function check(record: RunRecord): InvariantFinding | undefined {
  const first = new FirstFinding();
  for (const bad of record.invalid) {
    const index = record.intents.findIndex((emitted) => emitted.intent === bad.intent && emitted.at === bad.at);
    first.offer({
      at: bad.at,
      message: `${describeIntent(record, { ...bad, ...(index < 0 ? {} : { index }) })} was found invalid and not sent: ${bad.problems.join('; ')}`,
      details: { problems: bad.problems },
    });
  }
  const markets = hostMarkets(record);
  for (const [index, { at, intent }] of record.intents.entries()) {
    const problems = intentShapeProblems(intent, markets);
    if (problems.length === 0) continue;
    first.offer({ at, message: `${describeIntent(record, { index, at, intent })} is invalid: ${problems.join('; ')}`, details: { index, problems } });
    break;
  }
  return first.first;
}

export const validIntentsInvariant = defineInvariant(
  'valid-intents',
  'Every intent is valid for its market: prices on the tick and in bounds, sizes within min..max, slots below 62 and unique, post-only with GTC, not empty.',
  check,
);
