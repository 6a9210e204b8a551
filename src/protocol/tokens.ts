/**
 * Token metadata (`GET {base_url}/api/v1/tokens/{tokenAddress}`): the envelope `{feedEpoch: null,
 * data: token}` and the path parameter.
 */
import { z } from 'zod';
import { lowercaseAddress } from './encoding.ts';

/**
 * The token object (spec). `tokenAddress` is a lowercase 20-byte address (spec). The types of the
 * non-null values of `logoUrl`, `description`, `websiteUrl`, `firstPoolAddress` are not shown:
 * we take strings (ours) and do not check `firstPoolAddress` as an address, so an upstream format
 * change cannot break metadata reads. Unknown extra fields are accepted and kept.
 */
export const tokenSchema = z.looseObject({
  tokenAddress: lowercaseAddress,
  name: z.string(),
  symbol: z.string(),
  /** ERC-20 decimals (uint8). */
  decimals: z.int().min(0).max(255),
  logoUrl: z.string().nullable(),
  description: z.string().nullable(),
  websiteUrl: z.string().nullable(),
  verified: z.boolean(),
  contractRenounced: z.boolean(),
  isErc20: z.boolean(),
  isMintable: z.boolean(),
  isStrict: z.boolean(),
  firstPoolAddress: z.string().nullable(),
});
/**
 * The token object of a token-metadata answer; unknown extra fields are kept.
 *
 * @useDeclaredType
 */
export type Token = z.output<typeof tokenSchema>;

/**
 * Token metadata response (spec). `feedEpoch` is always null: metadata is not a replay cut of the
 * exchange feed.
 *
 * @example tokenEnvelopeSchema.parse(await response.json()).data.decimals
 */
export const tokenEnvelopeSchema = z.looseObject({
  feedEpoch: z.null(),
  data: tokenSchema,
});
export type TokenEnvelope = z.output<typeof tokenEnvelopeSchema>;

/** Path parameter `tokenAddress`: lowercase 20-byte address (spec). */
export const tokenPathSchema = z.object({
  tokenAddress: lowercaseAddress,
});
export type TokenPath = z.output<typeof tokenPathSchema>;
