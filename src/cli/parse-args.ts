/**
 * Arguments of a subcommand, parsed with node:util `parseArgs`; every mistake (unknown option,
 * missing value, wrong number of arguments) is a BaseError CLI_USAGE.
 */
import { parseArgs } from 'node:util';
import { BaseError } from '../core/base-error.ts';

export type OptionSpec = { readonly type: 'string' | 'boolean'; readonly short?: string; readonly multiple?: boolean };

export interface ParseCommandArgsParameters<O extends Record<string, OptionSpec>> {
  readonly command: string;
  readonly options: O;
  /** Names of the positional arguments, for messages; `?` marks optional ones (`file`, `count?`), a last name ending in `…` takes any number more (`file…`). */
  readonly positionals: readonly string[];
}

type OptionValues<O extends Record<string, OptionSpec>> = {
  [K in keyof O]?: O[K]['multiple'] extends true
    ? (O[K]['type'] extends 'boolean' ? boolean : string)[]
    : O[K]['type'] extends 'boolean'
      ? boolean
      : string;
};

export interface ParsedCommandArgs<O extends Record<string, OptionSpec>> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
}

/**
 * @example parseCommandArgs(['a.yaml', '--kind', 'run'], { command: 'validate', options: { kind: { type: 'string' } }, positionals: ['file'] })
 * // { values: { kind: 'run' }, positionals: ['a.yaml'] }
 */
export function parseCommandArgs<O extends Record<string, OptionSpec>>(
  args: readonly string[],
  params: ParseCommandArgsParameters<O>,
): ParsedCommandArgs<O> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: params.options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '') : String(error);
    throw new BaseError('CLI_USAGE', `${params.command}: ${message}`, { details: { command: params.command } });
  }
  const required = params.positionals.filter((name) => !name.endsWith('?')).length;
  const count = parsed.positionals.length;
  const variadic = params.positionals.at(-1)?.endsWith('…') === true;
  if (count < required || (count > params.positionals.length && !variadic)) {
    const names = params.positionals.map((name) => (name.endsWith('?') ? `[${name.slice(0, -1)}]` : `<${name}>`)).join(' ');
    throw new BaseError('CLI_USAGE', `${params.command}: expected ${names}, got ${count} argument${count === 1 ? '' : 's'}`, {
      details: { command: params.command },
    });
  }
  return { values: parsed.values as OptionValues<O>, positionals: parsed.positionals };
}
