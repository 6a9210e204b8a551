/**
 * `clobbot market <depth|trades|ticker|klines|info> --symbol <S> [--network <n>] [--url <base>]
 * [--limit <n>] [--interval <i>] [--state <s>] [--json]`: one market-data request through the
 * same client the bot uses, printed as a table (or the parsed answer as JSON). Works against the
 * local venue (default network sim) and any Binance-compatible server (`--url`). `info` shows each
 * market's tick and size limits (its Binance filters) and, on the local venue, its fees.
 *
 * Exit 0 with the answer; 2 for a mistake of the user (usage, a refused parameter such as an
 * unknown symbol: `error MARKET_DATA_BAD_REQUEST: Invalid symbol. (code -1121)`); 1 when the
 * server cannot be reached or fails.
 */
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { seededRandom } from '../../core/random.ts';
import { scrubSecretText } from '../../core/secrets.ts';
import { DEFAULT_NETWORK, resolveNetwork } from '../../config/network-config.ts';
import type { KlineInterval, OrderbookState } from '../../protocol/constants.ts';
import type { Depth, ExchangeInfo, Kline, Ticker24hr, Trade } from '../../protocol/market-data.ts';
import { isClientError } from '../../clients/client-error.ts';
import { createFetchTransport } from '../../clients/http-transport.ts';
import { createMarketDataClient, type MarketDataClient } from '../../clients/market-data-client.ts';
import { MarketDataError } from '../../clients/market-data-error.ts';
import { DEFAULT_RETRY_POLICY } from '../../clients/retry-policy.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { fromUnits } from '../../core/units.ts';
import { getSimInfo } from '../../runtime/sim-account.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { canonicalMarketSymbol } from '../../config/fields.ts';

export const MARKET_REQUESTS = ['depth', 'trades', 'ticker', 'klines', 'info'] as const;
export type MarketRequest = (typeof MARKET_REQUESTS)[number];

const usageError = (message: string) => new BaseError('CLI_USAGE', `market: ${message}`, { details: { command: 'market' } });

function positiveInteger(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(text)) throw usageError(`--${name} must be a whole number`);
  return Number(text);
}

type Align = 'left' | 'right';

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (align[column] === 'left' ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

const isoMs = (ms: number) => new Date(ms).toISOString();

function depthText(symbol: string, depth: Depth): string {
  const time = depth.E === undefined ? '' : `  block time ${isoMs(depth.E)}`;
  const rows: string[][] = [];
  for (let index = 0; index < Math.max(depth.bids.length, depth.asks.length); index += 1) {
    const bid = depth.bids[index];
    const ask = depth.asks[index];
    rows.push([bid?.[1] ?? '', bid?.[0] ?? '', ask?.[0] ?? '', ask?.[1] ?? '']);
  }
  const table = formatTable(['BID QTY', 'BID PRICE', 'ASK PRICE', 'ASK QTY'], rows, ['right', 'right', 'right', 'right']);
  return `${symbol} depth  lastUpdateId ${depth.lastUpdateId}${time}  ${depth.bids.length} bids, ${depth.asks.length} asks\n${table}`;
}

function tradesText(symbol: string, trades: readonly Trade[]): string {
  const rows = trades.map((trade) => [String(trade.id), isoMs(trade.time), trade.price, trade.qty, trade.isBuyerMaker ? 'sell' : 'buy']);
  return `${symbol} trades  ${trades.length} (taker side)\n${formatTable(['ID', 'TIME', 'PRICE', 'QTY', 'SIDE'], rows, ['right', 'left', 'right', 'right', 'left'])}`;
}

function tickerText(ticker: Ticker24hr): string {
  const rows: [string, string][] = [
    ['last', ticker.lastPrice],
    ['bid', ticker.bidPrice],
    ['ask', ticker.askPrice],
    ['change', `${ticker.priceChange} (${ticker.priceChangePercent}%)`],
    ['open', ticker.openPrice],
    ['high', ticker.highPrice],
    ['low', ticker.lowPrice],
    ['volume', ticker.volume],
    ['quote volume', ticker.quoteVolume],
    ['trades', String(ticker.count)],
    ['from', isoMs(ticker.openTime)],
    ['to', isoMs(ticker.closeTime)],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [`${ticker.symbol} 24h ticker`, ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)].join('\n');
}

function klinesText(symbol: string, interval: string, klines: readonly Kline[]): string {
  const rows = klines.map((kline) => [isoMs(kline.openTime), kline.open, kline.high, kline.low, kline.close, kline.volume, String(kline.numTrades)]);
  const table = formatTable(['OPEN TIME', 'OPEN', 'HIGH', 'LOW', 'CLOSE', 'VOLUME', 'TRADES'], rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right']);
  return `${symbol} klines ${interval}  ${klines.length} candles\n${table}`;
}

/** A market's fees in bps (decimal strings), from pps (parts per 10^7 of the quote amount). */
export interface MarketFees {
  readonly makerBps: string;
  readonly takerBps: string;
}

/** `filterType`'s field of a symbol's Binance filters (the venue publishes PRICE_FILTER and LOT_SIZE), or '-'. */
function filterField(entry: ExchangeInfo['symbols'][number], filterType: string, field: string): string {
  const filter = entry.filters?.find((candidate) => candidate.filterType === filterType) as Record<string, unknown> | undefined;
  const value = filter?.[field];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '-';
}

export function infoText(info: ExchangeInfo, symbol: string | undefined, fees: ReadonlyMap<string, MarketFees> = new Map()): string {
  const symbols = symbol === undefined ? info.symbols : info.symbols.filter((candidate) => candidate.symbol === symbol);
  const rows = symbols.map((entry) => [
    entry.symbol,
    entry.status,
    entry.baseAsset,
    entry.quoteAsset,
    String(entry.baseAssetPrecision),
    String(entry.quoteAssetPrecision),
    filterField(entry, 'PRICE_FILTER', 'tickSize'),
    filterField(entry, 'LOT_SIZE', 'minQty'),
    filterField(entry, 'LOT_SIZE', 'maxQty'),
    fees.get(entry.symbol)?.makerBps ?? '-',
    fees.get(entry.symbol)?.takerBps ?? '-',
  ]);
  const table = formatTable(
    ['SYMBOL', 'STATUS', 'BASE', 'QUOTE', 'BASE PREC', 'QUOTE PREC', 'TICK', 'MIN SIZE', 'MAX SIZE', 'MAKER BPS', 'TAKER BPS'],
    rows,
    ['left', 'left', 'left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  return `exchange info  timezone ${info.timezone}  server time ${isoMs(info.serverTime)}${info.E === undefined ? '' : `  block ${isoMs(info.E)}`}  ${symbols.length} of ${info.symbols.length} symbols\n${table}`;
}

interface MarketArgs {
  readonly request: MarketRequest;
  readonly symbol: string | undefined;
  readonly limit: number | undefined;
  readonly interval: string;
  readonly state: string | undefined;
  readonly json: boolean;
}

/**
 * The markets' fees, which exchangeInfo does not carry: the local venue publishes them (`GET
 * /sim/info`). Any other server, or none answering: no fees (shown as '-').
 */
async function simFees(context: ClientContext, baseUrl: string): Promise<Map<string, MarketFees>> {
  const fees = new Map<string, MarketFees>();
  try {
    const info = await getSimInfo(context, baseUrl.replace(/\/+$/, ''));
    for (const market of info.markets) {
      if (market.makerFeePps === undefined || market.takerFeePps === undefined) continue;
      // bps = pps / 1000 (1 bp = 10^-4 = 1000 parts per 10^7).
      fees.set(market.symbol, { makerBps: fromUnits(market.makerFeePps, 1_000n), takerBps: fromUnits(market.takerFeePps, 1_000n) });
    }
  } catch {
    // Not the local venue: its fees are not published.
  }
  return fees;
}

async function fetchAndFormat(client: MarketDataClient, args: MarketArgs, fees: () => Promise<ReadonlyMap<string, MarketFees>>): Promise<{ value: unknown; text: string }> {
  const symbol = args.symbol ?? '';
  const limit = args.limit === undefined ? {} : { limit: args.limit };
  switch (args.request) {
    case 'depth': {
      // The server judges `state` (an unknown one is -1130), as every other parameter.
      const value = await client.depth({ symbol, ...limit, ...(args.state === undefined ? {} : { state: args.state as OrderbookState }) });
      return { value, text: depthText(symbol, value) };
    }
    case 'trades': {
      const value = await client.trades({ symbol, ...limit });
      return { value, text: tradesText(symbol, value) };
    }
    case 'ticker': {
      const value = await client.ticker24hr({ symbol });
      return { value, text: tickerText(value) };
    }
    case 'klines': {
      const value = await client.klines({ symbol, interval: args.interval as KlineInterval, ...limit });
      return { value, text: klinesText(symbol, args.interval, value) };
    }
    case 'info': {
      const value = await client.exchangeInfo();
      const known = await fees();
      const symbols = args.symbol === undefined ? value.symbols : value.symbols.filter((entry) => entry.symbol === args.symbol);
      // The JSON is the parsed answer, plus the fees (not part of exchangeInfo) when the venue publishes them.
      const feeEntries = symbols.flatMap((entry) => {
        const fee = known.get(entry.symbol);
        return fee === undefined ? [] : [[entry.symbol, fee] as const];
      });
      const shown = { ...value, symbols, ...(feeEntries.length === 0 ? {} : { fees: Object.fromEntries(feeEntries) }) };
      return { value: shown, text: infoText(value, args.symbol, known) };
    }
  }
}

function parseMarketArgs(args: readonly string[]): { market: MarketArgs; network: string; url: string | undefined } {
  const { values, positionals } = parseCommandArgs(args, {
    command: 'market',
    options: {
      symbol: { type: 'string' },
      network: { type: 'string' },
      url: { type: 'string' },
      limit: { type: 'string' },
      interval: { type: 'string' },
      state: { type: 'string' },
      json: { type: 'boolean' },
    },
    positionals: ['request'],
  });
  const request = positionals[0]!;
  if (!(MARKET_REQUESTS as readonly string[]).includes(request)) {
    throw usageError(`unknown request ${JSON.stringify(request.slice(0, 20))}: expected one of ${MARKET_REQUESTS.join(', ')}`);
  }
  if (values.symbol === undefined && request !== 'info') throw usageError(`${request} needs --symbol <BASE_QUOTE>, e.g. --symbol MON_USDC`);
  return {
    market: {
      request: request as MarketRequest,
      symbol: values.symbol === undefined ? undefined : canonicalMarketSymbol(values.symbol),
      limit: positiveInteger('limit', values.limit),
      interval: values.interval ?? '1m',
      state: values.state,
      json: values.json === true,
    },
    network: values.network ?? DEFAULT_NETWORK,
    url: values.url,
  };
}

/** Runs `clobbot market …`; returns the exit code. */
async function runMarket(args: readonly string[], io: CliIo): Promise<number> {
  const { market, network: networkName, url } = parseMarketArgs(args);
  const network = resolveNetwork(networkName, url === undefined ? {} : { hosts: { exchangeUrl: url } });
  const baseUrl = network.hosts.exchangeUrl;
  if (baseUrl === undefined) throw usageError(`network ${network.name} publishes no market-data host: pass --url <base URL>`);
  const context: ClientContext = { transport: createFetchTransport(), clock: liveClock, random: seededRandom(liveClock.now() % 2 ** 31) };
  const client = createMarketDataClient(
    context,
    // One request: a quick second try after a lost answer or a 5xx, no long waits.
    { baseUrl, retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, maxRetryAfterMs: 2_000 } },
  );
  try {
    const { value, text } = await fetchAndFormat(client, market, () => (network.name === 'sim' ? simFees(context, baseUrl) : Promise.resolve(new Map())));
    io.stdout.write(`${market.json ? JSON.stringify(value, null, 2) : text}\n`);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof MarketDataError && (error.code as string) === 'MARKET_DATA_BAD_REQUEST') {
      io.stderr.write(`error ${error.code}: ${scrubSecretText(error.message)}\n`);
      return ExitCode.usage;
    }
    if (isClientError(error, 'HTTP_UNAVAILABLE') || isClientError(error, 'HTTP_TIMEOUT')) {
      const answered = error.status === undefined ? 'cannot be reached' : 'failed';
      io.stderr.write(`error ${error.code}: the market-data server ${baseUrl} ${answered}: ${scrubSecretText(error.message)}\n`);
      if (network.name === 'sim' && url === undefined && error.status === undefined) io.stderr.write('is `clobbot sim` running? (or pass --url <base URL>)\n');
      return ExitCode.failure;
    }
    throw error;
  }
}

export const marketCommand: Command = {
  name: 'market',
  summary: 'print one market-data request (depth, trades, ticker, klines, info) as a table or JSON',
  usage: [
    'clobbot market <depth|trades|ticker|klines|info> --symbol <S> [--network <n>] [--url <base>] [--limit <n>] [--interval <i>] [--state <s>] [--json]',
    '',
    '  --symbol <S>     the market, BASE_QUOTE (e.g. MON_USDC); optional for info (filters the list)',
    `  --network <n>    mainnet, testnet or sim (default ${DEFAULT_NETWORK}: http://127.0.0.1:31337)`,
    '  --url <base>     the market-data server, e.g. http://127.0.0.1:31337 (any Binance-compatible server)',
    '  --limit <n>      depth levels (1..5000), trades or klines (1..1000)',
    '  --interval <i>   klines interval: 1m 5m 15m 30m 1h 4h 1d 1w (default 1m)',
    '  --state <s>      depth orderbook state: proposed, voted, finalized, committed (default committed)',
    '  --json           the parsed answer as JSON instead of a table',
    '',
    'info lists each market with its tick, minimum and maximum size and, on the local venue, its maker and taker fees (bps).',
    '',
    'Exit 0 with the answer; 2 for a usage mistake or a refused parameter; 1 when the server cannot be reached or fails.',
  ].join('\n'),
  run: runMarket,
};
