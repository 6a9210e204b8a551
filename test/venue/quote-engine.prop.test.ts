/**
 * Swap quotes over books built with the real MatchingEngine: hand-computed outputs, every error, and
 * properties (the quote matches what the engine gives when its IOC orders run; larger amounts never
 * get a better average price).
 *
 * A property failure prints the line that replays it (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH;
 * CLOBBOT_FUZZ_RUNS runs more: docs/testing.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {  } from '../../src/protocol/encoding.ts';
import { quoteRequestSchema, quoteResponseSchema, type QuoteRequestInput, type QuoteResponse } from '../../src/protocol/quote.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { MatchingEngine } from '../../src/venue/matching-engine.ts';
import { computeQuote, engineQuoteBooks, type QuoteBooks } from '../../src/venue/quote-engine.ts';
import { MON, USDC, address, funded, monUsdc, order, placeOk, wethUsdc } from './fixtures.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const WETH = { address: address(0xa4), symbol: 'WETH', decimals: 18 } as const;

/** WETH_USDC in cents and 0.0001 WETH: quoteRaw = price * size, baseRaw = size * 1e14. Taker fee 0.1 %. */
const wethUsdc18: MarketSpec = {
  symbol: 'WETH_USDC',
  address: address(0xb3),
  baseToken: WETH,
  quoteToken: USDC,
  pricePrecision: 100n,
  sizePrecision: 10_000n,
  tickSize: 1n,
  minSize: 1n,
  maxSize: 1_000_000_000n,
  makerFeePps: 0n,
  takerFeePps: 10_000n,
};

/** MON_WETH in 1e-6 WETH and 0.001 MON: quoteRaw = price * size * 1e9. No fees. */
function monWeth(bidPrice: bigint) {
  const spec: MarketSpec = {
    symbol: 'MON_WETH',
    address: address(0xb4),
    baseToken: MON,
    quoteToken: WETH,
    pricePrecision: 1_000_000n,
    sizePrecision: 1000n,
    tickSize: 1n,
    minSize: 10n,
    maxSize: 1_000_000_000n,
    makerFeePps: 0n,
    takerFeePps: 0n,
  };
  return { spec, bidPrice };
}

const USER = address(0x5001);
const REFERRER = address(0x5002);
const E15 = 10n ** 15n;
const E14 = 10n ** 14n;

/**
 * MON_USDC (fixtures: quoteRaw = price * size * 10, baseRaw = size * 1e15, maker 0.1 %, taker 0.2 %):
 *   asks 100 @ 2.00, 150 @ 2.05 (maker 1), 50 @ 2.05 (maker 2), 1000 @ 2.10
 *   bids 100 @ 1.95, 300 @ 1.90
 * WETH_USDC: asks 5 @ 3000.00, 100 @ 3001.00. MON_WETH (optional): one bid of 1000 at `bidPrice`.
 */
function venue(options: { monWethBid?: bigint } = {}) {
  const direct = options.monWethBid === undefined ? undefined : monWeth(options.monWethBid);
  const markets = [monUsdc, wethUsdc18, ...(direct ? [direct.spec] : [])];
  const engine = new MatchingEngine({ markets });
  const maker1 = funded(engine, 1, { base: 10_000n * E15, quote: 100_000_000n });
  const maker2 = funded(engine, 2, { base: 10_000n * E15, quote: 100_000_000n });
  const maker3 = funded(engine, 3, { base: 1_000n * E14, market: wethUsdc18 });
  placeOk(engine, maker1, [
    order({ side: 'SELL', price: 200n, quantity: 100n }),
    order({ side: 'SELL', price: 205n, quantity: 150n }),
    order({ side: 'BUY', price: 195n, quantity: 100n }),
    order({ side: 'BUY', price: 190n, quantity: 300n }),
  ]);
  placeOk(engine, maker2, [order({ side: 'SELL', price: 205n, quantity: 50n }), order({ side: 'SELL', price: 210n, quantity: 1000n })]);
  placeOk(engine, maker3, [order({ side: 'SELL', price: 300_000n, quantity: 5n }), order({ side: 'SELL', price: 300_100n, quantity: 100n })], wethUsdc18);
  if (direct) {
    const maker4 = funded(engine, 4, { quote: 10n ** 18n, market: direct.spec });
    placeOk(engine, maker4, [order({ side: 'BUY', price: direct.bidPrice, quantity: 1000n })], direct.spec);
  }
  return { engine, books: engineQuoteBooks(engine) };
}

function request(partial: Partial<QuoteRequestInput> & Pick<QuoteRequestInput, 'tokenIn' | 'tokenOut' | 'amount'>) {
  return quoteRequestSchema.parse({ userAddress: USER, slippageTolerance: 50, autoSlippage: false, ...partial });
}

/** Computes a quote and checks it against the wire schema and JSON. */
function quote(books: QuoteBooks, partial: Parameters<typeof request>[0]): QuoteResponse {
  const response = computeQuote(books, request(partial));
  expect(quoteResponseSchema.safeParse(response).success).toBe(true);
  expect(JSON.parse(JSON.stringify(response))).toEqual(response);
  return response;
}

interface HopView {
  market: string;
  symbol: string;
  side: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: string;
  amountOut: string;
  size: string;
  takerFee: string;
  worstPrice: string;
  fills: number;
}
const hops = (response: QuoteResponse) => (response.path as { hops: HopView[] }).hops;
const build = (response: QuoteResponse) =>
  response.buildResponse as { to: string; minOutput: string; referrerFee: string; orders: { market: string; side: string; quantity: string; price: string }[] };

describe('computeQuote: direct routes', () => {
  it('buys MON with USDC from the asks, fees included, the last level partly (1 USDC -> 0.484 MON)', () => {
    const { books } = venue();
    const response = quote(books, { tokenIn: USDC.address, tokenOut: MON.address, amount: '1000000' });
    // 100 @ 200: 200,000 + fee 400; 150 @ 205: 307,500 + 615; 50 @ 205: 102,500 + 205 -> 388,780 left.
    // At 210 one unit costs 2,100 + 0.2 %: 184 units cost 386,400 + 772 = 387,172 (185 would cost 389,277).
    expect(response).toMatchObject({ type: 'swap_calculation', status: 'success', output: (484n * E15).toString() });
    expect(hops(response)).toEqual([
      expect.objectContaining({
        market: monUsdc.address,
        symbol: 'MON_USDC',
        side: 'BUY',
        tokenIn: USDC.address,
        tokenOut: MON.address,
        amountIn: '998392',
        amountOut: (484n * E15).toString(),
        size: '484',
        takerFee: '1992',
        worstPrice: '210',
        fills: 4,
      }),
    ]);
    expect(build(response)).toMatchObject({
      to: monUsdc.address,
      minOutput: '481580000000000000', // 484e15 * 9950 / 10000
      orders: [{ market: monUsdc.address, side: 'BUY', quantity: '484', price: '210', tif: 'IOC' }],
    });
    expect(response.gasPrices).toEqual({ gasPrice: '0', maxFeePerGas: '0', maxPriorityFeePerGas: '0' });
  });

  it('sells MON into the bids, rounding the amount down to whole size units (0.35 MON + dust -> 0.66866 USDC)', () => {
    const { books } = venue();
    const response = quote(books, { tokenIn: MON.address, tokenOut: USDC.address, amount: (350n * E15 + 123n).toString() });
    // 100 @ 195: 195,000 - 390; 250 @ 190: 475,000 - 950.
    expect(response.output).toBe('668660');
    expect(hops(response)).toEqual([
      expect.objectContaining({ side: 'SELL', amountIn: (350n * E15).toString(), size: '350', takerFee: '1340', worstPrice: '190', fills: 2 }),
    ]);
    expect((response.path as { amountInUsed: string }).amountInUsed).toBe((350n * E15).toString());
  });

  it('takes the referrer fee from the output, then applies the slippage tolerance', () => {
    const { books } = venue();
    const response = quote(books, {
      tokenIn: USDC.address,
      tokenOut: MON.address,
      amount: '1000000',
      slippageTolerance: 100,
      referrerAddress: REFERRER,
      referrerFeeBps: 30,
    });
    // 484e15 * 30 / 10000 = 1.452e15 to the referrer; min output 482.548e15 * 9900 / 10000.
    expect(response.output).toBe('482548000000000000');
    expect(build(response)).toMatchObject({ referrerFee: '1452000000000000', minOutput: '477722520000000000', referrerAddress: REFERRER });
  });

  it('agrees with the matching engine: running the IOC orders of buildResponse gives exactly the output', () => {
    for (const [tokenIn, tokenOut, amount] of [
      [USDC.address, MON.address, 1_000_000n],
      [MON.address, USDC.address, 350n * E15 + 123n],
    ] as const) {
      const { engine, books } = venue();
      const response = quote(books, { tokenIn, tokenOut, amount: amount.toString() });
      // The engine checks the worst case of an IOC buy (its limit price for the whole size), so fund amply.
      const taker = funded(engine, 9, { base: 10_000n * E15, quote: 100_000_000n });
      const before = { in: engine.balance(taker, tokenIn).available, out: engine.balance(taker, tokenOut).available };
      const [ioc] = build(response).orders;
      placeOk(engine, taker, [order({ side: ioc!.side as 'BUY' | 'SELL', price: BigInt(ioc!.price), quantity: BigInt(ioc!.quantity), tif: 'IOC' })]);
      expect(engine.balance(taker, tokenOut).available - before.out).toBe(BigInt(response.output));
      expect(before.in - engine.balance(taker, tokenIn).available).toBe(BigInt(hops(response)[0]!.amountIn));
    }
  });
});

describe('computeQuote: two hops', () => {
  it('routes MON -> WETH through USDC when no market trades the pair', () => {
    const { books } = venue();
    const response = quote(books, { tokenIn: MON.address, tokenOut: WETH.address, amount: (350n * E15).toString() });
    // Hop 1 gives 668,660 raw USDC (as above). Hop 2 at 300,000: one unit costs 300,000 + 0.1 %:
    // 2 units cost 600,600, 3 would cost 900,900 -> 2 units = 2e14 raw WETH.
    expect(response.output).toBe((2n * E14).toString());
    expect(hops(response).map((h) => [h.symbol, h.side, h.amountIn, h.amountOut])).toEqual([
      ['MON_USDC', 'SELL', (350n * E15).toString(), '668660'],
      ['WETH_USDC', 'BUY', '600600', (2n * E14).toString()],
    ]);
    expect(build(response).to).toBe(monUsdc.address);
    expect(response.message).toBe('best of 1 route(s): sell MON on MON_USDC, then buy WETH on WETH_USDC');
  });

  it('chooses the largest output between the direct market and the route through USDC', () => {
    // Direct at 0.0005 WETH/MON: 500 * 350 * 1e9 = 1.75e14 < 2e14 through USDC.
    const low = quote(venue({ monWethBid: 500n }).books, { tokenIn: MON.address, tokenOut: WETH.address, amount: (350n * E15).toString() });
    expect(low.output).toBe((2n * E14).toString());
    expect(hops(low).map((h) => h.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
    expect((low.path as { routesConsidered: number }).routesConsidered).toBe(2);
    // Direct at 0.0006 WETH/MON: 2.1e14 beats it.
    const high = quote(venue({ monWethBid: 600n }).books, { tokenIn: MON.address, tokenOut: WETH.address, amount: (350n * E15).toString() });
    expect(high.output).toBe('210000000000000');
    expect(hops(high).map((h) => h.symbol)).toEqual(['MON_WETH']);
  });
});

describe('computeQuote: errors', () => {
  const { books } = venue();
  const error = (partial: Parameters<typeof request>[0]) => {
    const response = quote(books, partial);
    expect(response).toMatchObject({ type: 'swap_calculation', status: 'error', output: '0' });
    return response.message;
  };

  it('answers insufficient liquidity when the book cannot absorb the amount', () => {
    expect(error({ tokenIn: USDC.address, tokenOut: MON.address, amount: '100000000' })).toBe(
      'insufficient liquidity: the asks of MON_USDC take 2715420 of the 100000000 raw USDC to spend',
    );
    expect(error({ tokenIn: MON.address, tokenOut: USDC.address, amount: (401n * E15).toString() })).toBe(
      'insufficient liquidity: the bids of MON_USDC hold 400 of the 401 size units to sell',
    );
  });

  it('answers unknown tokens, the same token twice, a zero, too small or too large amount, and a referrer fee without referrer', () => {
    const stranger = address(0xdead);
    expect(error({ tokenIn: stranger, tokenOut: MON.address, amount: '1' })).toBe(`unknown token ${stranger} (tokenIn): no market of the venue trades it`);
    expect(error({ tokenIn: MON.address, tokenOut: stranger, amount: '1' })).toBe(`unknown token ${stranger} (tokenOut): no market of the venue trades it`);
    expect(error({ tokenIn: USDC.address, tokenOut: USDC.address.toUpperCase().replace('0X', '0x'), amount: '1' })).toBe(
      `tokenIn and tokenOut are the same token ${USDC.address}`,
    );
    expect(error({ tokenIn: USDC.address, tokenOut: MON.address, amount: '0' })).toBe('amount must be greater than 0');
    expect(error({ tokenIn: MON.address, tokenOut: USDC.address, amount: (9n * E15).toString() })).toBe(
      'amount too small: 9000000000000000 raw MON is 9 size units on MON_USDC, below its minimum 10',
    );
    const whale = { ...monUsdc, maxSize: 300n };
    const whaleBooks: QuoteBooks = { markets: () => [whale], levels: (market, side) => books.levels(market, side) };
    const tooLarge = computeQuote(whaleBooks, request({ tokenIn: MON.address, tokenOut: USDC.address, amount: (350n * E15).toString() }));
    expect(tooLarge).toMatchObject({ status: 'error', message: 'amount too large: 350 size units on MON_USDC exceed its maximum order of 300' });
    expect(error({ tokenIn: USDC.address, tokenOut: MON.address, amount: '1000000', referrerFeeBps: 10 })).toBe('referrerFeeBps needs a referrerAddress');
    expect(error({ tokenIn: USDC.address, tokenOut: MON.address, amount: '1000000', referrerAddress: REFERRER, referrerFeeBps: 10_000 })).toBe(
      'the referrer fee takes the whole output',
    );
  });

  it('answers no route between tokens that no chain of at most two markets connects', () => {
    const lone = { ...wethUsdc, address: address(0xb9), symbol: 'WETH_DAI', quoteToken: { address: address(0xa9), symbol: 'DAI', decimals: 18 } };
    const books = engineQuoteBooks(new MatchingEngine({ markets: [monUsdc, lone] }));
    const response = computeQuote(books, request({ tokenIn: MON.address, tokenOut: lone.baseToken.address, amount: '1' }));
    expect(response.status).toBe('error');
    expect(response.message).toBe(`no route from ${MON.address} to ${lone.baseToken.address} over the venue's markets`);
  });
});

// ---- properties ------------------------------------------------------------------------------

interface BookGen {
  readonly market: 0 | 1;
  readonly orders: readonly { readonly maker: number; readonly ask: boolean; readonly ticks: number; readonly size: number }[];
}

/** monUsdc has exact conversions; fixtures' wethUsdc floors them (and charges a 25 % taker fee). */
const PROP_MARKETS = [
  { spec: monUsdc, mid: 200n },
  { spec: wethUsdc, mid: 12_345n },
] as const;

const bookArb: fc.Arbitrary<BookGen> = fc.record({
  market: fc.constantFrom(0 as const, 1 as const),
  orders: fc.array(
    fc.record({ maker: fc.integer({ min: 0, max: 2 }), ask: fc.boolean(), ticks: fc.integer({ min: 1, max: 12 }), size: fc.integer({ min: 1, max: 400 }) }),
    { minLength: 1, maxLength: 25 },
  ),
});

function bookOf(gen: BookGen) {
  const { spec, mid } = PROP_MARKETS[gen.market];
  const engine = new MatchingEngine({ markets: [spec] });
  const makers = [0, 1, 2].map((n) => funded(engine, n, { base: 10n ** 24n, quote: 10n ** 24n, market: spec }));
  for (const o of gen.orders) {
    const price = o.ask ? mid + BigInt(o.ticks) * spec.tickSize : mid - BigInt(o.ticks) * spec.tickSize;
    const quantity = spec.minSize + BigInt(o.size) * (spec.maxSize > 100_000n ? 1n : 10n);
    placeOk(engine, makers[o.maker]!, [order({ side: o.ask ? 'SELL' : 'BUY', price, quantity: quantity > spec.maxSize ? spec.maxSize : quantity })], spec);
  }
  return { spec, engine, books: engineQuoteBooks(engine) };
}

/** Amount to swap: `fraction` (per mille) of what the side holds, in raw tokenIn, plus a little dust. */
function amountFor(engine: MatchingEngine, spec: MarketSpec, buy: boolean, perMille: number, dust: number): bigint {
  const depth = engine.depth(spec.address, 1000)!;
  const side = buy ? depth.asks : depth.bids;
  let total = 0n;
  for (const [price, size] of side) total += buy ? (price * size * 10n ** BigInt(spec.quoteToken.decimals)) / (spec.pricePrecision * spec.sizePrecision) : size;
  if (!buy) total = (total * 10n ** BigInt(spec.baseToken.decimals)) / spec.sizePrecision;
  return (total * BigInt(perMille)) / 1000n + BigInt(dust);
}

const settings = fuzzSettings({ numRuns: 150, seed: 20_250_101 });
const RUNS = settings.numRuns ?? 100;

describe('computeQuote properties', () => {
  it('gives exactly what the engine gives when its IOC order runs, and never more than the book holds', () => {
    let filled = 0;
    fc.assert(
      fc.property(bookArb, fc.boolean(), fc.integer({ min: 1, max: 1300 }), fc.integer({ min: 1, max: 10_000 }), (gen, buy, perMille, dust) => {
        const { spec, engine, books } = bookOf(gen);
        const tokenIn = buy ? spec.quoteToken.address : spec.baseToken.address;
        const tokenOut = buy ? spec.baseToken.address : spec.quoteToken.address;
        const amount = amountFor(engine, spec, buy, perMille, dust);
        const response = computeQuote(books, request({ tokenIn, tokenOut, amount: amount.toString() }));
        expect(quoteResponseSchema.safeParse(response).success).toBe(true);
        if (response.status === 'error') {
          expect(response.message).toMatch(/^(insufficient liquidity|amount too small|amount too large)/);
          return;
        }
        filled++;
        const [hop] = hops(response);
        const [ioc] = build(response).orders;
        expect(BigInt(hop!.amountIn)).toBeLessThanOrEqual(amount);
        const taker = funded(engine, 9, { base: 10n ** 30n, quote: 10n ** 30n, market: spec });
        const before = { in: engine.balance(taker, tokenIn).available, out: engine.balance(taker, tokenOut).available };
        const result = placeOk(engine, taker, [order({ side: ioc!.side as 'BUY' | 'SELL', price: BigInt(ioc!.price), quantity: BigInt(ioc!.quantity), tif: 'IOC' })], spec);
        expect(result.events.filter((e) => e.type === 'OrderFilled').length).toBe(hop!.fills);
        expect(engine.balance(taker, tokenOut).available - before.out).toBe(BigInt(response.output));
        expect(before.in - engine.balance(taker, tokenIn).available).toBe(BigInt(hop!.amountIn));
      }),
      settings,
    );
    if (settings.path === undefined) expect(filled).toBeGreaterThan(RUNS / 3);
  });

  it('never gives a larger amount more output per unit (beyond the fee rounding), and never less output', () => {
    let compared = 0;
    fc.assert(
      fc.property(bookArb, fc.boolean(), fc.integer({ min: 1, max: 1100 }), fc.integer({ min: 1, max: 1100 }), (gen, buy, m1, m2) => {
        const { spec, engine, books } = bookOf({ ...gen, market: 0 }); // exact conversions: only the fee floors
        const tokenIn = buy ? spec.quoteToken.address : spec.baseToken.address;
        const tokenOut = buy ? spec.baseToken.address : spec.quoteToken.address;
        const [small, large] = m1 <= m2 ? [m1, m2] : [m2, m1];
        const run = (perMille: number) =>
          computeQuote(books, request({ tokenIn, tokenOut, amount: amountFor(engine, spec, buy, perMille, 0).toString() }));
        const a = run(small);
        const b = run(large);
        if (a.status === 'error' && a.message.startsWith('insufficient')) expect(b.status).toBe('error');
        if (a.status === 'error' || b.status === 'error') return;
        compared++;
        expect(BigInt(b.output)).toBeGreaterThanOrEqual(BigInt(a.output));
        const [ha] = hops(a);
        const [hb] = hops(b);
        const sizeA = BigInt(ha!.size);
        const sizeB = BigInt(hb!.size);
        const fillsB = BigInt(hb!.fills);
        if (buy) {
          // Average cost per size unit never falls: (costB + fillsB) / sizeB >= costA / sizeA.
          expect((BigInt(hb!.amountIn) + fillsB) * sizeA).toBeGreaterThanOrEqual(BigInt(ha!.amountIn) * sizeB);
        } else {
          // Average proceeds per size unit never rise: outB / sizeB <= (outA + fillsB * sizeA / sizeB) / sizeA.
          expect(BigInt(b.output) * sizeA).toBeLessThanOrEqual(BigInt(a.output) * sizeB + fillsB * sizeA);
        }
      }),
      settings,
    );
    if (settings.path === undefined) expect(compared).toBeGreaterThan(RUNS / 4);
  });
});
