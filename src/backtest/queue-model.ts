/**
 * Queue position models for the backtester: when does one of the bot's own resting orders fill in a
 * replayed market? The recorded book never shows our orders, so for each of them the backtester keeps
 * an estimate of the displayed size resting AHEAD of it at its price and feeds the model the recorded
 * events at that price. The models are hftbacktest's RiskAdverseQueueModel and ProbQueueModel
 * (https://hftbacktest.readthedocs.io/en/latest/order_fill.html), written anew.
 *
 * The consumer's loop, per own resting order:
 * - on placement: `place(displayed lots at the order's price)`; an order that improves the price
 *   (nothing displayed there yet) is `place(0n)`, i.e. at the front;
 * - on a recorded trade that hit the side and price of the order: `onTrade(position, lots)`;
 * - on a depth change of the side and price of the order: `onDepth(position, previousLots, newLots)`;
 * - after each event: `takeFilled(position)`, capped by the consumer at the order's remaining size.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { configErrorMap } from '../config/config-error-map.ts';
import { formatConfigPath } from '../config/config-issue.ts';
import { probabilisticQueue } from './probabilistic-queue.ts';
import { riskAverseQueue } from './risk-averse-queue.ts';

/**
 * Where one own resting order stands in the queue of its price level, in lots. The numbers are
 * probabilistic estimates (the probabilistic model splits decreases fractionally), so they are JS
 * numbers; every fill taken out of them is a whole number of lots as a bigint. The shape is the same
 * for every model, so a position can be handed from one model to another.
 */
export interface QueuePosition {
  /**
   * Estimated displayed lots ahead of the order. Negative once trades went past it: `takeFilled`
   * turns that into a fill and brings it back to 0.
   */
  ahead: number;
  /** Lots traded at the price since the last depth update (a depth update already counts them). */
  tradedSinceDepth: number;
}

/** A queue position model. Stateless: all state lives in the positions it hands out. */
export interface QueueModel {
  /** The registry name (`QUEUE_MODELS`). */
  readonly name: QueueModelName;
  /** The settings of the model, for the backtest manifest. */
  readonly params: Readonly<Record<string, number | string>>;
  /** A new order joins the back of the queue behind `displayedLots` (`0n`: it is alone at the front). */
  place(displayedLots: bigint): QueuePosition;
  /** A recorded trade of `lots` hit the order's price level (its side). */
  onTrade(position: QueuePosition, lots: bigint): void;
  /** The displayed size at the order's price changed from `previousLots` to `newLots`. */
  onDepth(position: QueuePosition, previousLots: bigint, newLots: bigint): void;
  /**
   * Whole lots of the order filled by now, taken out of the estimate (a second call returns 0n). The
   * model does not know the order's size: the consumer caps the fill at the remaining size.
   */
  takeFilled(position: QueuePosition): bigint;
  /** Estimated lots still ahead of the order, never negative (0: at the front). */
  front(position: QueuePosition): number;
}

/** zod: the queue model of a backtest (strict: unknown keys are errors). */
export const queueModelConfigSchema = z.discriminatedUnion('model', [
  /** Fills only once recorded trades have consumed everything displayed ahead at placement. */
  z.strictObject({ model: z.literal('risk-averse') }),
  /** Also credits part of each cancel to the queue ahead, more for a larger share ahead; `power` shapes how much. */
  z.strictObject({ model: z.literal('probabilistic'), power: z.number().positive().finite().default(3) }),
]);

export type QueueModelConfig = z.output<typeof queueModelConfigSchema>;
export type QueueModelConfigInput = z.input<typeof queueModelConfigSchema>;
export type QueueModelName = QueueModelConfig['model'];

/** Every queue model by name, each made from its (parsed) config. */
export const QUEUE_MODELS: { readonly [N in QueueModelName]: (config: Extract<QueueModelConfig, { model: N }>) => QueueModel } = {
  'risk-averse': () => riskAverseQueue(),
  probabilistic: (config) => probabilisticQueue({ power: config.power }),
};

/**
 * The queue model a config names. Throws CONFIG_INVALID (with `{ issues }` in the details) when the
 * config does not match `queueModelConfigSchema`.
 *
 * @example
 * const model = createQueueModel({ model: 'probabilistic' }); // power 3
 * const position = model.place(12n);
 * model.onTrade(position, 15n);
 * model.takeFilled(position); // 3n
 */
export function createQueueModel(config: unknown): QueueModel {
  const parsed = queueModelConfigSchema.safeParse(config, { error: configErrorMap });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: formatConfigPath(issue.path.filter((key): key is string | number => typeof key !== 'symbol')),
      message: issue.message,
    }));
    const lines = issues.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
    throw new BaseError('CONFIG_INVALID', `invalid queue model: ${lines.join('; ')}`, { details: { issues } });
  }
  const value = parsed.data;
  switch (value.model) {
    case 'risk-averse':
      return QUEUE_MODELS['risk-averse'](value);
    case 'probabilistic':
      return QUEUE_MODELS.probabilistic(value);
  }
}
