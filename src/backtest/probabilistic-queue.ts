/**
 * hftbacktest's ProbQueueModel with PowerProbQueueFunc3: a decrease of the displayed size that trades
 * do not explain is a cancel, split between the queue ahead of the order and the queue behind it. The
 * larger the share ahead, the more of the cancel is assumed to come from ahead. Two guards that
 * hftbacktest does not have: a cancel never takes the estimate below 0 (a fill needs a trade), and an
 * order already at or past the front is left where it is.
 */
import { BaseError } from '../core/base-error.ts';
import type { QueueModel } from './queue-model.ts';
import { takeWholeLots } from './risk-averse-queue.ts';

export interface ProbabilisticQueueOptions {
  /** n of prob = 1 - (front / (front + back))^n, the chance that a cancel is behind the order; > 0. */
  readonly power: number;
}

/**
 * The probabilistic queue model. The estimate of lots ahead becomes fractional (an expected value);
 * fills are still whole lots. Throws CONFIG_INVALID for a power that is not a positive finite number.
 *
 * @example
 * const model = probabilisticQueue({ power: 3 });
 * const position = model.place(10n);
 * model.onDepth(position, 10n, 6n); // 4 lots cancelled; 10 of 10 ahead: all of them from ahead
 * position.ahead; // 6
 */
export function probabilisticQueue(options: ProbabilisticQueueOptions = { power: 3 }): QueueModel {
  const { power } = options;
  if (!(power > 0 && Number.isFinite(power))) {
    throw new BaseError('CONFIG_INVALID', `queue model power must be a positive number, got ${power}`, { details: { power } });
  }
  return {
    name: 'probabilistic',
    params: Object.freeze({ power }),
    place: (displayedLots) => ({ ahead: Number(displayedLots), tradedSinceDepth: 0 }),
    onTrade(position, lots) {
      position.ahead -= Number(lots);
      position.tradedSinceDepth += Number(lots);
    },
    onDepth(position, previousLots, newLots) {
      const previous = Number(previousLots);
      const next = Number(newLots);
      // The trades since the last update are already in `ahead`: only the rest is a cancel.
      const change = previous - next - position.tradedSinceDepth;
      position.tradedSinceDepth = 0;
      // An increase joins behind the order; at or past the front a cancel can only be behind it.
      if (change < 0 || position.ahead <= 0) {
        position.ahead = Math.min(position.ahead, next);
        return;
      }
      const front = position.ahead;
      // The backtester's `previous` may lag the estimate; nothing behind then, never a negative amount.
      const back = Math.max(previous - front, 0);
      const behind = cancelBehindProbability(front, back, power);
      const estimated = front - (1 - behind) * change + Math.min(back - behind * change, 0);
      // A cancel moves the order up to the front at most: only trades fill it. (With power < 1 the
      // formula alone can go below 0, and float rounding can leave a tiny negative.)
      position.ahead = Math.min(Math.max(estimated, 0), next);
    },
    takeFilled: takeWholeLots,
    front: (position) => Math.max(position.ahead, 0),
  };
}

/**
 * PowerProbQueueFunc3: the chance that a cancel at the level came from behind the order,
 * 1 - (front / (front + back))^n; 1 when the level is empty (hftbacktest: a non-finite value is 1).
 *
 * @example cancelBehindProbability(1, 1, 3) // 0.875
 */
export function cancelBehindProbability(front: number, back: number, power: number): number {
  const total = front + back;
  if (!(total > 0)) return 1;
  const probability = 1 - (front / total) ** power;
  return Number.isFinite(probability) ? probability : 1;
}
