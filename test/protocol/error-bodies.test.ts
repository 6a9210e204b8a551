import { MarketErrorCode } from '../../src/protocol/constants.ts';
import { describe, expect, it } from 'vitest';
import {
  marketDataErrorBodySchema,
  marketErrorBody,
  relayAuthFailureBodySchema,
  userDataErrorBodySchema,
} from '../../src/protocol/error-bodies.ts';

describe('marketErrorBody', () => {
  it('reproduces the real Binance bodies recorded in SOURCES.md', () => {
    expect(marketErrorBody.badSymbol()).toEqual({ code: -1121, msg: 'Invalid symbol.' });
    expect(marketErrorBody.mandatoryParameter('symbol')).toEqual({
      code: -1102,
      msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.",
    });
  });

  it('uses the Binance texts for -1100, -1130, -1120 and -1003', () => {
    expect(marketErrorBody.illegalCharacters('limit', '^[0-9]{1,20}$')).toEqual({
      code: -1100,
      msg: "Illegal characters found in parameter 'limit'; legal range is '^[0-9]{1,20}$'.",
    });
    expect(marketErrorBody.invalidParameter('limit')).toEqual({
      code: -1130,
      msg: "Data sent for parameter 'limit' is not valid.",
    });
    expect(marketErrorBody.badInterval()).toEqual({ code: MarketErrorCode.BAD_INTERVAL, msg: 'Invalid interval.' });
    expect(MarketErrorCode.BAD_INTERVAL).toBe(-1120);
    expect(marketErrorBody.tooManyRequests()).toEqual({
      code: -1003,
      msg: 'Too much request weight used; current limit is 1200 request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.',
    });
    expect(marketErrorBody.tooManyRequests(600).msg).toContain('current limit is 600 request weight');
  });

  it('builds bodies that satisfy the body schema', () => {
    expect(marketDataErrorBodySchema.parse(marketErrorBody.badSymbol())).toEqual({ code: -1121, msg: 'Invalid symbol.' });
  });
});

describe('marketDataErrorBodySchema', () => {
  it('parses a real body and keeps unknown fields', () => {
    expect(marketDataErrorBodySchema.parse({ code: -1121, msg: 'Invalid symbol.', extra: 1 })).toEqual({
      code: -1121,
      msg: 'Invalid symbol.',
      extra: 1,
    });
  });

  it.each([
    { code: '-1121', msg: 'Invalid symbol.' },
    { code: -1121.5, msg: 'x' },
    { code: -1121 },
    { msg: 'x' },
    { code: -1121, msg: 7 },
  ])('refuses %j', (body) => {
    expect(marketDataErrorBodySchema.safeParse(body).success).toBe(false);
  });
});

describe('userDataErrorBodySchema', () => {
  it('parses {error}', () => {
    expect(userDataErrorBodySchema.parse({ error: 'internal server error' }).error).toBe('internal server error');
  });

  it.each([{ error: 1 }, { message: 'x' }, null, 'error'])('refuses %j', (body) => {
    expect(userDataErrorBodySchema.safeParse(body).success).toBe(false);
  });
});

describe('relayAuthFailureBodySchema', () => {
  it('parses the venue body', () => {
    const body = relayAuthFailureBodySchema.parse({ code: 'AUTHENTICATION_FAILED', message: 'token expired', retryable: false });
    expect(body).toEqual({ code: 'AUTHENTICATION_FAILED', message: 'token expired', retryable: false });
  });

  it.each([
    { code: 'WALLET_MISMATCH', message: 'x', retryable: false },
    { code: 'AUTHENTICATION_FAILED', message: 'x', retryable: 'false' },
    { code: 'AUTHENTICATION_FAILED', retryable: false },
    { code: 401, message: 'x', retryable: false },
  ])('refuses %j', (body) => {
    expect(relayAuthFailureBodySchema.safeParse(body).success).toBe(false);
  });
});
