/**
 * Swap quotes of the simulated venue (`POST /api/quote`): the best route over the venue's books for
 * swapping an amount of one token into another, walked exactly in integer units.
 *
 * Policies (ours; docs/protocol.md repeats them):
 * - Routes: every market that trades the pair directly (either direction: tokenIn the base sells
 *   into the bids, tokenIn the quote buys from the asks), and every route through one shared token
 *   (two hops, the first hop's output is the second's input). The largest output wins; on a tie,
 *   the route found first (direct routes first, then in market order).
 * - A hop is one IOC taker order walking the book in priority order, as the matching engine would
 *   fill it: each entry floors its quote and taker fee like one fill. Selling base: the amount is
 *   rounded down to whole size units (the rest stays with the user); buying base: the largest size
 *   whose cost (quote + taker fee) fits the amount. `buildResponse.orders` holds those IOC orders
 *   (size, and the last price reached as limit). A hop outside the market's minSize..maxSize fails
 *   (amount too small / too large): one hop is one order, so that the quote stays exact.
 * - Insufficient liquidity: the side runs out before the size is filled (selling), or while the
 *   rest of the amount could still buy one more size unit (buying).
 * - The referrer fee (`referrerFeeBps` of the output, floored; only with `referrerAddress`) is taken
 *   from the output; `minOutput` = output x (10000 - slippageTolerance) / 10000, floored.
 *   `autoSlippage` changes nothing here: the given tolerance is used.
 * - Every resting order counts, the requester's own included (self-trade would cancel those).
 * - Gas prices are zero: the relay sponsors gas.
 */
import type { Address } from '../protocol/encoding.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { QuoteRequest, QuoteResponse } from '../protocol/quote.ts';
import { amountScale, baseRaw, feeRaw, quoteRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import type { MatchingEngine } from './matching-engine.ts';

/** One entry of a book side: a resting order (exact) or an aggregated level. */
export interface QuoteBookEntry {
  /** Price units. */
  readonly price: bigint;
  /** Open size, size units. */
  readonly size: bigint;
}

/**
 * The read port the quote needs: the markets, and each side of a book in priority order (bids
 * highest first, asks lowest first; within a price, oldest first). Give resting orders, not
 * aggregated levels, for quotes that match the engine's per-fill rounding to the unit.
 */
export interface QuoteBooks {
  markets(): readonly MarketSpec[];
  levels(market: Address, side: 'bids' | 'asks'): Iterable<QuoteBookEntry>;
}

/**
 * The QuoteBooks of a matching engine's current books (resting orders, lazily).
 *
 * @example computeQuote(engineQuoteBooks(engine), request)
 */
export function engineQuoteBooks(engine: MatchingEngine): QuoteBooks {
  return {
    markets: () => engine.markets(),
    *levels(market, side) {
      const book = engine.book(market);
      if (book === undefined) return;
      for (const order of book.orders(side === 'bids')) yield { price: order.price, size: order.remaining };
    },
  };
}

/** One hop of a route as quoted. */
interface Hop {
  readonly spec: MarketSpec;
  /** The taker's side on the market. */
  readonly side: OrderSide;
  readonly tokenIn: Address;
  readonly tokenOut: Address;
  /** Raw tokenIn the hop spends (at most what it was given). */
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  /** Size units traded. */
  readonly size: bigint;
  /** Taker fee, raw quote token. */
  readonly fee: bigint;
  readonly bestPrice: bigint;
  /** The last price reached: the IOC limit price that reproduces the hop. */
  readonly worstPrice: bigint;
  readonly fills: number;
}

type HopResult = { readonly ok: true; readonly hop: Hop } | { readonly ok: false; readonly message: string };

const GAS_PRICES = Object.freeze({ gasPrice: '0', maxFeePerGas: '0', maxPriorityFeePerGas: '0' });

function cost(scale: AmountScale, takerFeePps: bigint, price: bigint, size: bigint): bigint {
  const quote = quoteRaw(scale, price, size);
  return quote + feeRaw(quote, takerFeePps);
}

function tooLarge(spec: MarketSpec, size: bigint): string {
  return `amount too large: ${size} size units on ${spec.symbol} exceed its maximum order of ${spec.maxSize}`;
}

/** Sells `amountIn` raw base into the bids. */
function sellBase(books: QuoteBooks, spec: MarketSpec, amountIn: bigint): HopResult {
  const scale = amountScale(spec);
  const size = (amountIn * scale.baseDiv) / scale.baseMul;
  if (size < spec.minSize) {
    return {
      ok: false,
      message: `amount too small: ${amountIn} raw ${spec.baseToken.symbol} is ${size} size units on ${spec.symbol}, below its minimum ${spec.minSize}`,
    };
  }
  if (size > spec.maxSize) return { ok: false, message: tooLarge(spec, size) };
  let left = size;
  let out = 0n;
  let fee = 0n;
  let spent = 0n;
  let fills = 0;
  let best = 0n;
  let worst = 0n;
  for (const { price, size: open } of books.levels(spec.address, 'bids')) {
    if (open <= 0n) continue;
    const take = open < left ? open : left;
    const quote = quoteRaw(scale, price, take);
    const takerFee = feeRaw(quote, spec.takerFeePps);
    out += quote - takerFee;
    fee += takerFee;
    spent += baseRaw(scale, take);
    if (fills++ === 0) best = price;
    worst = price;
    left -= take;
    if (left === 0n) break;
  }
  if (left > 0n) {
    return {
      ok: false,
      message: `insufficient liquidity: the bids of ${spec.symbol} hold ${size - left} of the ${size} size units to sell`,
    };
  }
  if (out === 0n) return { ok: false, message: `amount too small: selling ${size} size units on ${spec.symbol} yields 0` };
  return {
    ok: true,
    hop: {
      spec,
      side: 'SELL',
      tokenIn: spec.baseToken.address,
      tokenOut: spec.quoteToken.address,
      amountIn: spent,
      amountOut: out,
      size,
      fee,
      bestPrice: best,
      worstPrice: worst,
      fills,
    },
  };
}

/** The largest `t` in `0..max` whose cost fits `budget` (cost(max) is known not to fit). */
function affordable(scale: AmountScale, takerFeePps: bigint, price: bigint, max: bigint, budget: bigint): bigint {
  let lo = 0n;
  let hi = max;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (cost(scale, takerFeePps, price, mid) <= budget) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Buys base from the asks with a budget of `amountIn` raw quote. */
function buyBase(books: QuoteBooks, spec: MarketSpec, amountIn: bigint): HopResult {
  const scale = amountScale(spec);
  const feePps = spec.takerFeePps;
  let left = amountIn;
  let size = 0n;
  let out = 0n;
  let fee = 0n;
  let fills = 0;
  let best = 0n;
  let worst = 0n;
  let bookEnded = true;
  for (const { price, size: open } of books.levels(spec.address, 'asks')) {
    if (open <= 0n) continue;
    let take = open;
    if (cost(scale, feePps, price, open) > left) {
      take = affordable(scale, feePps, price, open, left);
      bookEnded = false;
    }
    if (take > 0n) {
      const quote = quoteRaw(scale, price, take);
      const takerFee = feeRaw(quote, feePps);
      left -= quote + takerFee;
      fee += takerFee;
      out += baseRaw(scale, take);
      size += take;
      if (fills++ === 0) best = price;
      worst = price;
    }
    if (!bookEnded) break;
  }
  if (bookEnded && left > 0n && (fills === 0 || cost(scale, feePps, worst, 1n) <= left)) {
    return {
      ok: false,
      message: `insufficient liquidity: the asks of ${spec.symbol} take ${amountIn - left} of the ${amountIn} raw ${spec.quoteToken.symbol} to spend`,
    };
  }
  if (size > spec.maxSize) return { ok: false, message: tooLarge(spec, size) };
  if (size < spec.minSize || out === 0n) {
    return {
      ok: false,
      message: `amount too small: ${amountIn} raw ${spec.quoteToken.symbol} buys ${size} size units on ${spec.symbol}, below its minimum ${spec.minSize}`,
    };
  }
  return {
    ok: true,
    hop: {
      spec,
      side: 'BUY',
      tokenIn: spec.quoteToken.address,
      tokenOut: spec.baseToken.address,
      amountIn: amountIn - left,
      amountOut: out,
      size,
      fee,
      bestPrice: best,
      worstPrice: worst,
      fills,
    },
  };
}

function swapOn(books: QuoteBooks, spec: MarketSpec, tokenIn: Address, amountIn: bigint): HopResult {
  return tokenIn === spec.baseToken.address ? sellBase(books, spec, amountIn) : buyBase(books, spec, amountIn);
}

function otherToken(spec: MarketSpec, token: Address): Address | undefined {
  if (spec.baseToken.address === token) return spec.quoteToken.address;
  if (spec.quoteToken.address === token) return spec.baseToken.address;
  return undefined;
}

/** Direct routes first, then two-hop routes through one shared token, in market order. */
function routes(markets: readonly MarketSpec[], tokenIn: Address, tokenOut: Address): MarketSpec[][] {
  const found: MarketSpec[][] = [];
  for (const m of markets) if (otherToken(m, tokenIn) === tokenOut) found.push([m]);
  for (const first of markets) {
    const shared = otherToken(first, tokenIn);
    if (shared === undefined || shared === tokenOut) continue;
    for (const second of markets) {
      if (second !== first && otherToken(second, shared) === tokenOut) found.push([first, second]);
    }
  }
  return found;
}

function errorResponse(request: QuoteRequest, message: string): QuoteResponse {
  return {
    type: 'swap_calculation',
    status: 'error',
    output: '0',
    path: { tokenIn: request.tokenIn.toLowerCase(), tokenOut: request.tokenOut.toLowerCase(), amountIn: request.amount, hops: [] },
    buildResponse: {},
    gasPrices: { ...GAS_PRICES },
    message,
  };
}

function describeHop(hop: Hop): string {
  return `${hop.side === 'SELL' ? 'sell' : 'buy'} ${hop.spec.baseToken.symbol} on ${hop.spec.symbol}`;
}

/**
 * The best swap of `request.amount` raw tokenIn into tokenOut over `books`. Never throws for a bad
 * request: it answers status `error` with a message (unknown token, same token, no route,
 * insufficient liquidity, amount too small or too large, referrer fee without a referrer).
 *
 * @example
 * const response = computeQuote(engineQuoteBooks(engine), { userAddress, tokenIn: usdc, tokenOut: mon,
 *   amount: '1000000', slippageTolerance: 50, autoSlippage: false });
 * if (response.status === 'success') response.output; // raw MON for 1 USDC, after the taker fee
 */
export function computeQuote(books: QuoteBooks, request: QuoteRequest): QuoteResponse {
  const tokenIn = request.tokenIn.toLowerCase() as Address;
  const tokenOut = request.tokenOut.toLowerCase() as Address;
  if (tokenIn === tokenOut) return errorResponse(request, `tokenIn and tokenOut are the same token ${tokenIn}`);
  const markets = books.markets();
  const known = new Set<Address>(markets.flatMap((m) => [m.baseToken.address, m.quoteToken.address]));
  if (!known.has(tokenIn)) return errorResponse(request, `unknown token ${tokenIn} (tokenIn): no market of the venue trades it`);
  if (!known.has(tokenOut)) return errorResponse(request, `unknown token ${tokenOut} (tokenOut): no market of the venue trades it`);
  const amount = BigInt(request.amount);
  if (amount === 0n) return errorResponse(request, 'amount must be greater than 0');
  const referrer = request.referrerAddress?.toLowerCase() ?? null;
  const referrerFeeBps = request.referrerFeeBps ?? 0;
  if (referrer === null && referrerFeeBps > 0) return errorResponse(request, 'referrerFeeBps needs a referrerAddress');

  const candidates = routes(markets, tokenIn, tokenOut);
  if (candidates.length === 0) return errorResponse(request, `no route from ${tokenIn} to ${tokenOut} over the venue's markets`);
  let best: Hop[] | null = null;
  let firstFailure: string | null = null;
  for (const route of candidates) {
    const hops: Hop[] = [];
    let token = tokenIn;
    let amountIn = amount;
    let failure: string | null = null;
    for (const spec of route) {
      const result = swapOn(books, spec, token, amountIn);
      if (!result.ok) {
        failure = result.message;
        break;
      }
      hops.push(result.hop);
      token = result.hop.tokenOut;
      amountIn = result.hop.amountOut;
    }
    if (failure !== null) firstFailure ??= failure;
    else if (best === null || hops[hops.length - 1]!.amountOut > best[best.length - 1]!.amountOut) best = hops;
  }
  if (best === null) {
    const others = candidates.length - 1;
    return errorResponse(request, others === 0 ? firstFailure! : `${firstFailure!} (${others} other route(s) failed too)`);
  }

  const gross = best[best.length - 1]!.amountOut;
  const referrerFee = (gross * BigInt(referrerFeeBps)) / 10_000n;
  const output = gross - referrerFee;
  if (output === 0n) return errorResponse(request, 'the referrer fee takes the whole output');
  const minOutput = (output * BigInt(10_000 - request.slippageTolerance)) / 10_000n;
  return {
    type: 'swap_calculation',
    status: 'success',
    output: output.toString(),
    path: {
      tokenIn,
      tokenOut,
      amountIn: request.amount,
      amountInUsed: best[0]!.amountIn.toString(),
      amountOut: gross.toString(),
      routesConsidered: candidates.length,
      hops: best.map((hop) => ({
        market: hop.spec.address,
        symbol: hop.spec.symbol,
        side: hop.side,
        tokenIn: hop.tokenIn,
        tokenOut: hop.tokenOut,
        amountIn: hop.amountIn.toString(),
        amountOut: hop.amountOut.toString(),
        size: hop.size.toString(),
        takerFee: hop.fee.toString(),
        bestPrice: hop.bestPrice.toString(),
        worstPrice: hop.worstPrice.toString(),
        fills: hop.fills,
      })),
    },
    buildResponse: {
      to: best[0]!.spec.address,
      tokenIn,
      tokenOut,
      amountIn: request.amount,
      minOutput: minOutput.toString(),
      slippageTolerance: request.slippageTolerance,
      autoSlippage: request.autoSlippage,
      referrerAddress: referrer,
      referrerFeeBps,
      referrerFee: referrerFee.toString(),
      // The IOC orders that reproduce the route on the current books.
      orders: best.map((hop) => ({
        market: hop.spec.address,
        side: hop.side,
        quantity: hop.size.toString(),
        price: hop.worstPrice.toString(),
        tif: 'IOC',
      })),
    },
    gasPrices: { ...GAS_PRICES },
    message: `best of ${candidates.length} route(s): ${best.map(describeHop).join(', then ')}`,
  };
}
