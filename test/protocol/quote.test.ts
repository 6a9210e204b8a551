import { describe, expect, it } from 'vitest';
import {
  generateTokenRequestSchema,
  generateTokenResponseSchema,
  quoteRequestSchema,
  quoteResponseSchema,
} from '../../src/protocol/quote.ts';

const USER = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';
const request = {
  userAddress: USER,
  tokenIn: '0x0000000000000000000000000000000000000000',
  tokenOut: '0xf817257fed379853cde0fa4f97ab987181b1e5ea',
  amount: '1000000000000000000',
  slippageTolerance: 50,
  autoSlippage: false,
};

describe('quoteRequestSchema', () => {
  it('parses a request, lowercasing addresses', () => {
    const parsed = quoteRequestSchema.parse({ ...request, referrerAddress: USER, referrerFeeBps: 0 });
    expect(parsed.userAddress).toBe(USER.toLowerCase());
    expect(parsed.amount).toBe('1000000000000000000');
    expect(parsed.referrerFeeBps).toBe(0);
  });

  it('accepts the bounds of the basis-point ranges', () => {
    expect(quoteRequestSchema.safeParse({ ...request, slippageTolerance: 1 }).success).toBe(true);
    expect(quoteRequestSchema.safeParse({ ...request, slippageTolerance: 10_000, referrerFeeBps: 10_000 }).success).toBe(true);
  });

  it.each([
    ['slippage 0', { ...request, slippageTolerance: 0 }],
    ['slippage 10001', { ...request, slippageTolerance: 10_001 }],
    ['fractional slippage', { ...request, slippageTolerance: 1.5 }],
    ['referrer fee 10001', { ...request, referrerFeeBps: 10_001 }],
    ['negative referrer fee', { ...request, referrerFeeBps: -1 }],
    ['fractional amount', { ...request, amount: '1.5' }],
    ['negative amount', { ...request, amount: '-1' }],
    ['leading-zero amount', { ...request, amount: '01' }],
    ['numeric amount', { ...request, amount: 1000 }],
    ['string autoSlippage', { ...request, autoSlippage: 'true' }],
    ['bad tokenIn', { ...request, tokenIn: 'MON' }],
    ['unknown field (strict)', { ...request, slippage: 50 }],
    ['missing autoSlippage', { ...request, autoSlippage: undefined }],
  ])('refuses %s', (_name, body) => {
    expect(quoteRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('quoteResponseSchema', () => {
  const response = {
    type: 'swap_calculation',
    status: 'success',
    output: '389000',
    path: { route: [] },
    buildResponse: { to: '0x00', data: '0x' },
    gasPrices: { maxFeePerGas: '1' },
    message: 'ok',
  };

  it('parses a quote and keeps the opaque objects', () => {
    const parsed = quoteResponseSchema.parse(response);
    expect(parsed.output).toBe('389000');
    expect(parsed.gasPrices).toEqual({ maxFeePerGas: '1' });
    expect(quoteResponseSchema.parse({ ...response, status: 'error', output: '0', message: 'no route' }).message).toBe('no route');
  });

  it.each([
    ['other type', { ...response, type: 'quote' }],
    ['other status', { ...response, status: 'pending' }],
    ['missing message', { ...response, message: undefined }],
    ['decimal output', { ...response, output: '389000.5' }],
    ['array path', { ...response, path: [] }],
    ['null gasPrices', { ...response, gasPrices: null }],
  ])('refuses %s', (_name, body) => {
    expect(quoteResponseSchema.safeParse(body).success).toBe(false);
  });
});

describe('generate-token', () => {
  it('request: user_address only', () => {
    expect(generateTokenRequestSchema.parse({ user_address: USER })).toEqual({ user_address: USER.toLowerCase() });
    expect(generateTokenRequestSchema.safeParse({ user_address: USER, userAddress: USER }).success).toBe(false);
    expect(generateTokenRequestSchema.safeParse({ userAddress: USER }).success).toBe(false);
  });

  const response = { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', expires_at: 1735790645, rate_limit: { rps: 1, burst: 1 } };
  it('response: token, expires_at, rate_limit', () => {
    expect(generateTokenResponseSchema.parse(response).rate_limit).toEqual({ rps: 1, burst: 1 });
  });

  it.each([
    ['not a JWT', { ...response, token: 'opaque' }],
    ['string expires_at', { ...response, expires_at: '1735790645' }],
    ['rps 0', { ...response, rate_limit: { rps: 0, burst: 1 } }],
    ['missing burst', { ...response, rate_limit: { rps: 1 } }],
  ])('refuses %s', (_name, body) => {
    expect(generateTokenResponseSchema.safeParse(body).success).toBe(false);
  });
});
