/**
 * `clobbot import <source> <file…> --out <feed.arrow>`: public market data converted to the
 * normalized feed format (docs/feeds.md, "Importers"), each source with its own quirks handled.
 */
import { existsSync } from 'node:fs';
import { BaseError } from '../../core/base-error.ts';
import { importBinanceCapture } from '../../feeds/importers/binance-capture.ts';
import { importBinanceKlines } from '../../feeds/importers/binance-klines.ts';
import { importBinanceTrades } from '../../feeds/importers/binance-trades.ts';
import type { Importer } from '../../feeds/importers/importer.ts';
import { importTardis } from '../../feeds/importers/tardis.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

/** Every importer by the name users give it. */
export const IMPORTERS: ReadonlyMap<string, { readonly importer: Importer; readonly what: string }> = new Map([
  ['binance-capture', { importer: importBinanceCapture, what: 'captures of REST depth + depth/trade/bookTicker streams (hftbacktest\'s format)' }],
  ['binance-trades', { importer: importBinanceTrades, what: 'data.binance.vision trades dumps (.zip with .CHECKSUM, or .csv)' }],
  ['binance-klines', { importer: importBinanceKlines, what: 'data.binance.vision klines dumps (a candle feed)' }],
  ['tardis', { importer: importTardis, what: 'Tardis.dev incremental_book_L2 and trades CSV (.csv or .csv.gz)' }],
]);

const usage = [
  'clobbot import <source> <file…> --out <feed.arrow> [--symbol <S>] [--tick-size <d>] [--lot-size <d>] [--allow-gaps] [--force]',
  '',
  ...[...IMPORTERS].map(([name, { what }]) => `  ${name.padEnd(16)}${what}`),
  '',
  '  <file…>           input files in time order (several: one source continued)',
  '  --symbol <S>      the market\'s symbol when the files do not name it',
  '  --tick-size <d>   price step, e.g. 0.01 (default: inferred from the data, and said so in the feed)',
  '  --lot-size <d>    size step, e.g. 0.00001 (default: inferred)',
  '  --allow-gaps      on a depth sequence gap, report it and resynchronise at the next snapshot instead of refusing',
  '  --force           replace an existing output file',
].join('\n');

export const importCommand: Command = {
  name: 'import',
  summary: 'convert public market data (Binance captures and dumps, Tardis) to a normalized feed',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      command: 'import',
      options: {
        out: { type: 'string' },
        symbol: { type: 'string' },
        'tick-size': { type: 'string' },
        'lot-size': { type: 'string' },
        'allow-gaps': { type: 'boolean' },
        force: { type: 'boolean' },
      },
      positionals: ['source', 'file…'],
    });
    const [source, ...inputs] = positionals;
    const entry = IMPORTERS.get(source!);
    if (entry === undefined) throw new BaseError('CLI_USAGE', `import: unknown source ${JSON.stringify(source!.slice(0, 30))}: expected one of ${[...IMPORTERS.keys()].join(', ')}`, { details: { command: 'import' } });
    if (values.out === undefined) throw new BaseError('CLI_USAGE', 'import: --out <feed.arrow> is required', { details: { command: 'import' } });
    if (existsSync(values.out) && values.force !== true) throw new BaseError('FEED_OUTPUT_EXISTS', `${values.out} already exists (pass --force to replace it)`, { details: { path: values.out } });
    const started = performance.now();
    const result = await entry.importer({
      inputs,
      out: values.out,
      ...(values.symbol === undefined ? {} : { symbol: values.symbol }),
      ...(values['tick-size'] === undefined ? {} : { tickSize: values['tick-size'] }),
      ...(values['lot-size'] === undefined ? {} : { lotSize: values['lot-size'] }),
      allowGaps: values['allow-gaps'] === true,
      ...(io.isTty ? { onProgress: ({ rows }: { rows: number }) => void io.stdout.write(`\r  ${rows.toLocaleString('en-US')} rows`) } : {}),
    });
    const seconds = (performance.now() - started) / 1_000;
    io.stdout.write(`${io.isTty ? '\r' : ''}imported ${inputs.length} file${inputs.length === 1 ? '' : 's'} -> ${values.out}: ${result.rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s\n`);
    for (const gap of result.gaps) io.stdout.write(`  gap: ${gap.file}:${gap.line}: ${gap.message}\n`);
    for (const note of result.notes) io.stdout.write(`  note: ${note}\n`);
    return ExitCode.ok;
  },
};
