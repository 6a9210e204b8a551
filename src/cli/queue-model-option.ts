/**
 * The queue model of an event backtest, as the command line names it: `--queue` of
 * `clobbot backtest`, `--queue-model` of `clobbot sweep` (whose `--queue` is a Redis URL).
 */
import { BaseError } from '../core/base-error.ts';
import type { QueueModelConfigInput } from '../backtest/queue-model.ts';

/** The models the option takes, for usage lines and errors. */
export const QUEUE_MODEL_CHOICES = 'risk-averse, probabilistic or probabilistic:<power>';

/**
 * @example parseQueueModelOption('probabilistic:2', { command: 'backtest', flag: '--queue' }) // { model: 'probabilistic', power: 2 }
 */
export function parseQueueModelOption(text: string, where: { readonly command: string; readonly flag: string }): QueueModelConfigInput {
  if (text === 'risk-averse') return { model: 'risk-averse' };
  const match = /^probabilistic(?::([0-9]+(?:\.[0-9]+)?))?$/.exec(text);
  if (match === null || (match[1] !== undefined && !(Number(match[1]) > 0))) {
    throw new BaseError('CLI_USAGE', `${where.command}: ${where.flag} must be ${QUEUE_MODEL_CHOICES}`, { details: { command: where.command } });
  }
  return match[1] === undefined ? { model: 'probabilistic' } : { model: 'probabilistic', power: Number(match[1]) };
}
