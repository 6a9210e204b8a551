/**
 * `clobbot quote --in <token> --out <token> --amount <n> [--slippage-bps <n>] [--user <address>]
 * [--config <run file> | --venue-url <url>] [--json]`: the best-path swap quote (`POST
 * {quote_url}/api/quote`, through the quote client: JWT and limiter) with its route.
 *
 * Tokens are addresses, or symbols of the venue's markets (the local venue's, or the run file's
 * markets given whole). `--amount` is in human units of the input token; its decimals come from the
 * token host. Amounts are printed as decimal strings, human and raw.
 *
 * Exit 0 with a `success` quote; 1 for an `error` quote (no route, not enough liquidity: its
 * message is printed) or a server that cannot be reached or fails; 2 for a usage mistake or a
 * refused request.
 */
import { BaseError } from '../../core/base-error.ts';
import { fromUnits, toUnits } from '../../core/units.ts';
import { createQuoteClient } from '../../clients/quote-client.ts';
import { createTokenClient, type TokenClient } from '../../clients/token-client.ts';
import type { QuoteResponse } from '../../protocol/quote.ts';
import type { Token } from '../../protocol/tokens.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { DATA_RETRY, DATA_TARGET_USAGE, reportDataError, resolveDataTarget, type DataTarget } from './data-hosts.ts';
import { formatTable } from './market.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Who asks, when --user is not given: a quote is a pure computation; the address only keys the JWT. */
export const DEFAULT_QUOTE_USER = '0x0000000000000000000000000000000000000001';
const DEFAULT_SLIPPAGE_BPS = 50;

const usageError = (message: string) => new BaseError('CLI_USAGE', `quote: ${message}`, { details: { command: 'quote' } });

/** An address as given, or the address of a token symbol of the venue's markets. */
async function tokenAddress(target: DataTarget, option: string, value: string): Promise<string> {
  if (ADDRESS.test(value)) return value.toLowerCase();
  if (!/^[A-Za-z0-9.]{1,20}$/.test(value)) throw usageError(`--${option} must be a token address or symbol`);
  const markets = await target.markets();
  const token = markets.flatMap((market) => [market.base, market.quote]).find((candidate) => candidate.symbol.toUpperCase() === value.toUpperCase());
  if (token === undefined) {
    const known = [...new Set(markets.flatMap((market) => [market.base.symbol, market.quote.symbol]))];
    throw usageError(`unknown token ${JSON.stringify(value)}${known.length === 0 ? ': give its address' : ` (known: ${known.join(', ')}; or give an address)`}`);
  }
  return token.address;
}

interface Hop {
  readonly symbol: string;
  readonly side: string;
  readonly tokenIn: string;
  readonly tokenOut: string;
  readonly amountIn: string;
  readonly amountOut: string;
  readonly fee: string;
}

/** The route's hops when `path` carries them (its fields are the venue's, not the spec's). */
function hopsOf(quote: QuoteResponse): Hop[] | undefined {
  const hops = (quote.path as { hops?: unknown }).hops;
  if (!Array.isArray(hops)) return undefined;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  return hops.map((hop: Record<string, unknown>) => ({
    symbol: text(hop['symbol'] ?? hop['market']),
    side: text(hop['side']),
    tokenIn: text(hop['tokenIn']).toLowerCase(),
    tokenOut: text(hop['tokenOut']).toLowerCase(),
    amountIn: text(hop['amountIn']),
    amountOut: text(hop['amountOut']),
    fee: text(hop['takerFee']),
  }));
}

const human = (raw: string, token: Token | undefined) => (token === undefined || !/^[0-9]+$/.test(raw) ? raw : fromUnits(BigInt(raw), 10n ** BigInt(token.decimals)));

export interface QuoteView {
  readonly tokenIn: Token;
  readonly tokenOut: Token;
  readonly amount: string;
  readonly slippageBps: number;
  readonly quote: QuoteResponse;
  /** Metadata of every token on the route, by lowercase address. */
  readonly tokens: ReadonlyMap<string, Token>;
}

/** The quote as a few lines and the route as a table. */
export function quoteText(view: QuoteView): string {
  const { tokenIn, tokenOut, quote } = view;
  const lines = [`quote ${view.amount} ${tokenIn.symbol} -> ${tokenOut.symbol}  status ${quote.status}${quote.message === '' ? '' : `: ${quote.message}`}`];
  if (quote.status === 'success') {
    const output = human(quote.output, tokenOut);
    lines.push(`  output      ${output} ${tokenOut.symbol} (raw ${quote.output})`);
    const minOutput = (quote.buildResponse as { minOutput?: unknown }).minOutput;
    if (typeof minOutput === 'string') lines.push(`  min output  ${human(minOutput, tokenOut)} ${tokenOut.symbol} at ${view.slippageBps} bps slippage`);
    const outUnits = BigInt(quote.output);
    if (outUnits > 0n) {
      // in per out, in human units: amount × 10^dOut / output, to the input token's decimals.
      const precision = 10n ** BigInt(tokenIn.decimals);
      const perOut = (toUnits(view.amount, precision, 'down') * 10n ** BigInt(tokenOut.decimals)) / outUnits;
      lines.push(`  price       ${fromUnits(perOut, precision)} ${tokenIn.symbol} per ${tokenOut.symbol}`);
    }
  }
  const hops = hopsOf(quote);
  if (hops !== undefined && hops.length > 0) {
    const symbolOf = (address: string) => view.tokens.get(address)?.symbol ?? address;
    const rows = hops.map((hop, index) => [
      String(index + 1),
      hop.symbol,
      hop.side,
      `${human(hop.amountIn, view.tokens.get(hop.tokenIn))} ${symbolOf(hop.tokenIn)}`,
      `${human(hop.amountOut, view.tokens.get(hop.tokenOut))} ${symbolOf(hop.tokenOut)}`,
      // The taker fee is in the quote token: what a buy pays in, what a sell receives.
      hop.fee === '' ? '-' : `${human(hop.fee, view.tokens.get(hop.side === 'SELL' ? hop.tokenOut : hop.tokenIn))} ${symbolOf(hop.side === 'SELL' ? hop.tokenOut : hop.tokenIn)}`,
    ]);
    lines.push(`  route       ${hops.length} hop${hops.length === 1 ? '' : 's'}`);
    lines.push(
      formatTable(['HOP', 'MARKET', 'SIDE', 'IN', 'OUT', 'TAKER FEE'], rows, ['right', 'left', 'left', 'right', 'right', 'right'])
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n'),
    );
  } else if (quote.status === 'success') {
    lines.push(`  route       ${JSON.stringify(quote.path)}`);
  }
  return lines.join('\n');
}

async function tokenOf(tokens: TokenClient, cache: Map<string, Token>, address: string): Promise<Token> {
  const known = cache.get(address);
  if (known !== undefined) return known;
  const token = await tokens.token(address);
  cache.set(address, token);
  return token;
}

async function runQuote(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, {
    command: 'quote',
    options: {
      in: { type: 'string' },
      out: { type: 'string' },
      amount: { type: 'string' },
      'slippage-bps': { type: 'string' },
      user: { type: 'string' },
      config: { type: 'string' },
      'venue-url': { type: 'string' },
      json: { type: 'boolean' },
    },
    positionals: [],
  });
  if (values.in === undefined || values.out === undefined || values.amount === undefined) throw usageError('--in <token>, --out <token> and --amount <n> are required');
  if (!/^[0-9]+(\.[0-9]+)?$/.test(values.amount)) throw usageError('--amount must be a decimal number of the input token, e.g. 100 or 2.5');
  const slippageText = values['slippage-bps'] ?? String(DEFAULT_SLIPPAGE_BPS);
  if (!/^[0-9]{1,5}$/.test(slippageText) || Number(slippageText) < 1 || Number(slippageText) > 10_000) throw usageError('--slippage-bps must be a whole number of basis points, 1..10000');
  const slippageBps = Number(slippageText);
  const user = values.user ?? DEFAULT_QUOTE_USER;
  if (!ADDRESS.test(user)) throw usageError('--user must be an address (0x and 40 hex digits)');

  const target = await resolveDataTarget(io, 'quote', values);
  const baseUrl = target.host('baseUrl');
  const quoteUrl = target.host('quoteUrl');
  const tokens = createTokenClient(target.context, { baseUrl, retry: DATA_RETRY });
  const cache = new Map<string, Token>();
  let step: { what: string; url: string } = { what: 'token', url: baseUrl };
  try {
    const inAddress = await tokenAddress(target, 'in', values.in);
    const outAddress = await tokenAddress(target, 'out', values.out);
    const tokenIn = await tokenOf(tokens, cache, inAddress);
    const tokenOut = await tokenOf(tokens, cache, outAddress);
    let amountRaw: bigint;
    try {
      amountRaw = toUnits(values.amount, 10n ** BigInt(tokenIn.decimals), 'exact');
    } catch {
      throw usageError(`--amount ${values.amount} has more decimals than ${tokenIn.symbol}'s ${tokenIn.decimals}`);
    }
    if (amountRaw === 0n) throw usageError('--amount must be greater than 0');
    step = { what: 'quote', url: quoteUrl };
    const client = createQuoteClient(target.context, { baseUrl: quoteUrl, retry: DATA_RETRY });
    const request = { userAddress: user, tokenIn: inAddress, tokenOut: outAddress, amount: amountRaw.toString(), slippageTolerance: slippageBps, autoSlippage: false };
    const quote = await client.quote(request);
    step = { what: 'token', url: baseUrl };
    for (const hop of hopsOf(quote) ?? []) {
      for (const address of [hop.tokenIn, hop.tokenOut]) if (ADDRESS.test(address)) await tokenOf(tokens, cache, address);
    }
    const view: QuoteView = { tokenIn, tokenOut, amount: values.amount, slippageBps, quote, tokens: cache };
    if (values.json === true) {
      const output = quote.status === 'success' ? fromUnits(BigInt(quote.output), 10n ** BigInt(tokenOut.decimals)) : null;
      io.stdout.write(`${JSON.stringify({ request, tokenIn: { address: inAddress, symbol: tokenIn.symbol, decimals: tokenIn.decimals }, tokenOut: { address: outAddress, symbol: tokenOut.symbol, decimals: tokenOut.decimals }, amount: values.amount, output, quote })}\n`);
    } else {
      io.stdout.write(`${quoteText(view)}\n`);
    }
    return quote.status === 'success' ? ExitCode.ok : ExitCode.failure;
  } catch (error) {
    return reportDataError(io, error, step.what, step.url);
  }
}

export const quoteCommand: Command = {
  name: 'quote',
  summary: 'print the best-path swap quote for an amount, with its route, as a table or JSON',
  usage: [
    'clobbot quote --in <token> --out <token> --amount <n> [--slippage-bps <n>] [--user <address>] [--config <run file> | --venue-url <url>] [--json]',
    '',
    '  --in, --out <token>  the tokens: addresses, or symbols of the venue\'s markets (e.g. USDC, MON)',
    '  --amount <n>         how much of the input token, in its human units (e.g. 100 or 2.5)',
    `  --slippage-bps <n>   the slippage tolerance, 1..10000 basis points (default ${DEFAULT_SLIPPAGE_BPS})`,
    `  --user <address>     who asks (keys the quote JWT; default ${DEFAULT_QUOTE_USER})`,
    ...DATA_TARGET_USAGE,
    '  --json               the request, the amounts and the parsed quote as one JSON object',
    '',
    'Exit 0 with a quote; 1 when the venue answers an error quote (no route, not enough liquidity) or cannot be reached; 2 for a usage mistake or a refused request.',
  ].join('\n'),
  run: runQuote,
};
