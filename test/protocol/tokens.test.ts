import { describe, expect, it } from 'vitest';
import { tokenEnvelopeSchema, tokenPathSchema, tokenSchema } from '../../src/protocol/tokens.ts';

const token = {
  tokenAddress: '0xf817257fed379853cde0fa4f97ab987181b1e5ea',
  name: 'USD Coin',
  symbol: 'USDC',
  decimals: 6,
  logoUrl: null,
  description: null,
  websiteUrl: 'https://example.org',
  verified: true,
  contractRenounced: false,
  isErc20: true,
  isMintable: false,
  isStrict: true,
  firstPoolAddress: null,
};

describe('tokenEnvelopeSchema', () => {
  it('parses {feedEpoch: null, data}', () => {
    const envelope = tokenEnvelopeSchema.parse({ feedEpoch: null, data: token });
    expect(envelope.feedEpoch).toBeNull();
    expect(envelope.data.decimals).toBe(6);
    expect(envelope.data.websiteUrl).toBe('https://example.org');
  });

  it.each([
    ['feedEpoch 0', { feedEpoch: 0, data: token }],
    ['missing feedEpoch', { data: token }],
    ['missing data', { feedEpoch: null }],
  ])('refuses %s', (_name, body) => {
    expect(tokenEnvelopeSchema.safeParse(body).success).toBe(false);
  });
});

describe('tokenSchema', () => {
  it.each([
    ['mixed-case tokenAddress (spec: lowercase)', { ...token, tokenAddress: '0xF817257fed379853cDe0fa4F97AB987181B1E5Ea' }],
    ['short tokenAddress', { ...token, tokenAddress: '0xf817' }],
    ['decimals 256', { ...token, decimals: 256 }],
    ['fractional decimals', { ...token, decimals: 6.5 }],
    ['string boolean', { ...token, verified: 'true' }],
    ['missing isStrict', { ...token, isStrict: undefined }],
    ['numeric logoUrl', { ...token, logoUrl: 7 }],
  ])('refuses %s', (_name, body) => {
    expect(tokenSchema.safeParse(body).success).toBe(false);
  });
});

describe('tokenPathSchema', () => {
  it('takes a lowercase address only', () => {
    expect(tokenPathSchema.parse({ tokenAddress: token.tokenAddress }).tokenAddress).toBe(token.tokenAddress);
    expect(tokenPathSchema.safeParse({ tokenAddress: token.tokenAddress.toUpperCase().replace('0X', '0x') }).success).toBe(false);
  });
});
