/**
 * The values of a swept parameter as written on the command line: a comma-separated list whose items
 * are single values (`4`, `mid`, `0.5`) or ranges `from..to:step` (`1000..5000:1000`). Ranges are
 * decimal and exact (decimal.js, no float drift): `0.1..0.3:0.1` is 0.1, 0.2, 0.3; they start at
 * `from`, go up by `step` and stop at the last value not past `to`; each value is written in its
 * shortest form (`1.50` as 1.5). Values are kept as text: the run file's field they replace decides
 * their type (src/sweep/run-file-override.ts).
 */
import { BaseError } from '../core/base-error.ts';
import { Decimal } from '../core/decimal.ts';

/** The most values one parameter may take (a range with a step too small is a mistake, not a sweep). */
export const MAX_VALUES_PER_PARAM = 10_000;

const NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?';
const RANGE = new RegExp(`^(${NUMBER})\\.\\.(${NUMBER})(?::(${NUMBER}))?$`);

const usageError = (message: string, details: Record<string, unknown>) => new BaseError('CLI_USAGE', `sweep: ${message}`, { details: { command: 'sweep', ...details } });

/** The values of one range item, exactly. */
function rangeValues(label: string, item: string, match: RegExpExecArray): string[] {
  const [, fromText, toText, stepText] = match;
  if (stepText === undefined) throw usageError(`${label}: the range ${item} needs a step: from..to:step (e.g. 1000..5000:1000)`, { option: label, value: item });
  const from = new Decimal(fromText!);
  const to = new Decimal(toText!);
  const step = new Decimal(stepText);
  if (step.lte(0)) throw usageError(`${label}: the step of ${item} must be above zero`, { option: label, value: item });
  if (from.gt(to)) throw usageError(`${label}: the range ${item} is empty (${fromText} is above ${toText})`, { option: label, value: item });
  const count = to.minus(from).div(step).floor().plus(1);
  if (count.gt(MAX_VALUES_PER_PARAM)) throw usageError(`${label}: the range ${item} has ${count.toFixed()} values (at most ${MAX_VALUES_PER_PARAM})`, { option: label, value: item });
  const values: string[] = [];
  for (let k = 0; k < count.toNumber(); k += 1) values.push(from.plus(step.times(k)).toFixed());
  return values;
}

/**
 * The values of `text`; `label` names the option in messages (`--param size`, `--seed`).
 *
 * @example parseParamValues('--param spreadBps', '4,6,8') // ['4', '6', '8']
 * @example parseParamValues('--param size', '1000..5000:1000') // ['1000', '2000', '3000', '4000', '5000']
 * @example parseParamValues('--param rate', '0.1..0.3:0.1,0.5') // ['0.1', '0.2', '0.3', '0.5']
 */
export function parseParamValues(label: string, text: string): string[] {
  const values: string[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') throw usageError(`${label}=${text}: an empty value (two commas, or a comma at an end)`, { option: label, value: text });
    const range = RANGE.exec(item);
    if (range !== null) values.push(...rangeValues(label, item, range));
    else if (item.includes('..')) throw usageError(`${label}: ${item} is not a range: write from..to:step with decimal numbers (e.g. 0.5..2:0.25)`, { option: label, value: item });
    else values.push(item);
  }
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw usageError(`${label}: the value ${value} is given twice`, { option: label, value });
    seen.add(value);
  }
  if (values.length > MAX_VALUES_PER_PARAM) throw usageError(`${label}: ${values.length} values (at most ${MAX_VALUES_PER_PARAM})`, { option: label });
  return values;
}
