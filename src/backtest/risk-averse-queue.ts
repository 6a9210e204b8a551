/**
 * hftbacktest's RiskAdverseQueueModel: an order moves up only when recorded trades consume the size
 * ahead of it, or when the whole level shrinks below it. Cancels are always assumed to come from
 * behind, so fills come as late as the recorded data allows.
 */
import type { QueueModel, QueuePosition } from './queue-model.ts';

/**
 * The risk-averse queue model. Every estimate stays a whole number of lots.
 *
 * @example
 * const model = riskAverseQueue();
 * const position = model.place(10n); // 10 lots ahead
 * model.onDepth(position, 10n, 6n); // the level shrank: at most 6 ahead
 * model.onTrade(position, 8n); // 2 lots past the order
 * model.takeFilled(position); // 2n, and position.ahead is 0 again
 */
export function riskAverseQueue(): QueueModel {
  return {
    name: 'risk-averse',
    params: Object.freeze({}),
    place: (displayedLots) => ({ ahead: Number(displayedLots), tradedSinceDepth: 0 }),
    onTrade(position, lots) {
      position.ahead -= Number(lots);
      position.tradedSinceDepth += Number(lots);
    },
    onDepth(position, _previousLots, newLots) {
      // Whatever left the level, no more than what is still displayed can be ahead.
      position.ahead = Math.min(position.ahead, Number(newLots));
      position.tradedSinceDepth = 0;
    },
    takeFilled: takeWholeLots,
    front: (position) => Math.max(position.ahead, 0),
  };
}

/**
 * The whole lots traded past the order, and the position back at the front. Dropping the fraction
 * (the probabilistic model's estimates are fractional) loses no fill: trades come in whole lots and
 * a depth update leaves an order at or past the front where it is, so the fraction could never add
 * up to a lot. Shared by both models.
 */
export function takeWholeLots(position: QueuePosition): bigint {
  if (!(position.ahead < 0)) return 0n;
  const filled = BigInt(Math.floor(-position.ahead));
  position.ahead = 0;
  return filled;
}
