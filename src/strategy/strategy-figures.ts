/**
 * A strategy's own figures for the run's summary (`ctx.reportFigures`, Hummingbot's `format_status`):
 * a flat record of named values that goes into the printed summary and the JSON one as it is.
 * Decimals are strings in human units (`fromUnits`), never JS floats: money is never a JS number.
 */

/** One figure: a decimal or a word as a string, a count as a safe integer, a flag, or null (no value yet). */
export type StrategyFigure = string | number | boolean | null;

/** Named figures, in the order the strategy gives them. */
export type StrategyFigures = { readonly [name: string]: StrategyFigure };

/** A figure's name: what a summary line and a JSON key can hold as they are. */
const FIGURE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * What is wrong with `value` as StrategyFigures (empty when nothing is). Anything may come back from
 * a strategy's callback, so nothing is read blindly.
 *
 * @example figuresProblems({ avgPrice: '0.0351', fills: 3 }) // []
 * @example figuresProblems({ avgPrice: 0.0351 }) // ['avgPrice: 0.0351 is not a safe integer (give decimals and large amounts as strings)']
 */
export function figuresProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`expected a record of named figures, got ${describe(value)}`];
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return ['expected a plain object of named figures (not a Map or a class instance)'];
  const problems: string[] = [];
  for (const [name, figure] of Object.entries(value)) {
    if (!FIGURE_NAME.test(name)) {
      problems.push(`${JSON.stringify(name.slice(0, 70))}: a figure's name is 1 to 64 letters, digits, _, . or -, starting with a letter`);
      continue;
    }
    const problem = figureProblem(figure);
    if (problem !== undefined) problems.push(`${name}: ${problem}`);
  }
  return problems;
}

function figureProblem(figure: unknown): string | undefined {
  if (figure === null || typeof figure === 'boolean') return undefined;
  // One line each: the printed summary gives a figure one line.
  if (typeof figure === 'string') return /[\r\n]/.test(figure) ? 'a string with a line break' : undefined;
  if (typeof figure === 'number') return Number.isSafeInteger(figure) ? undefined : `${figure} is not a safe integer (give decimals and large amounts as strings)`;
  if (typeof figure === 'bigint') return 'a bigint (give it as a decimal string, e.g. with fromUnits)';
  if (figure === undefined) return 'undefined (use null for no value)';
  return `${describe(figure)} (figures are flat: strings, integers, booleans or null)`;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
