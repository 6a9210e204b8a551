/**
 * Swap quotes (`POST {quote_url}/api/quote`) and the quote JWT (`POST {quote_url}/api/generate-token`).
 *
 * Requests are what our client sends and the simulated venue checks: strict (an unknown field is
 * a client bug, ours). Responses are inbound: unknown extra fields are accepted and kept.
 */
import { z } from 'zod';
import { anyCaseAddress, uintText } from './encoding.ts';

/** Basis points `min..10000` (spec). */
const basisPoints = (min: number) => z.int().min(min).max(10_000);

/**
 * Quote request body (spec). Addresses follow the spec's pattern `^0x[a-fA-F0-9]{40}$` and are
 * normalised to lowercase; `amount` is a canonical decimal integer in the token's smallest unit.
 * The spec names two body variants without saying how they differ besides `autoSlippage`: we
 * require every non-referrer field in both (ours), so `slippageTolerance` is sent even when
 * `autoSlippage` is true.
 *
 * @example
 * quoteRequestSchema.parse({ userAddress, tokenIn, tokenOut, amount: '1000000', slippageTolerance: 50, autoSlippage: false })
 */
export const quoteRequestSchema = z.strictObject({
  userAddress: anyCaseAddress,
  tokenIn: anyCaseAddress,
  tokenOut: anyCaseAddress,
  amount: uintText(256),
  slippageTolerance: basisPoints(1),
  autoSlippage: z.boolean(),
  referrerAddress: anyCaseAddress.optional(),
  referrerFeeBps: basisPoints(0).optional(),
});
export type QuoteRequest = z.output<typeof quoteRequestSchema>;
/** What a caller writes (addresses in any case). */
export type QuoteRequestInput = z.input<typeof quoteRequestSchema>;

export const QUOTE_STATUSES = ['success', 'error'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** An object whose inner fields the spec does not show. */
const opaqueObject = z.looseObject({});

/**
 * Quote response (spec). The spec says a status-or-error message is carried but not its name: we
 * call it `message` (ours). `path`, `buildResponse` and `gasPrices` are opaque objects (their
 * fields are not shown). `output` is a decimal integer string.
 */
export const quoteResponseSchema = z.looseObject({
  type: z.literal('swap_calculation'),
  status: z.enum(QUOTE_STATUSES),
  output: uintText(256),
  path: opaqueObject,
  buildResponse: opaqueObject,
  gasPrices: opaqueObject,
  /** Status or error message (name ours). */
  message: z.string(),
});
export type QuoteResponse = z.output<typeof quoteResponseSchema>;

/** Generate-token request body: `user_address` (spec). No Authorization header. */
export const generateTokenRequestSchema = z.strictObject({
  user_address: anyCaseAddress,
});
export type GenerateTokenRequest = z.output<typeof generateTokenRequestSchema>;

/** Three base64url segments; the signature segment may be empty (unsigned JWT). */
const JWT_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Generate-token response (spec). `expires_at` is Unix seconds (ours: the unit is not shown; seconds
 * as in a JWT `exp`). `rate_limit` is 1 rps, burst 1 for issued tokens (spec), but the values are
 * read, not assumed.
 */
export const generateTokenResponseSchema = z.looseObject({
  token: z.string().regex(JWT_PATTERN, 'expected a JWT (three base64url segments)'),
  expires_at: z.int().min(0),
  rate_limit: z.looseObject({
    rps: z.int().min(1),
    burst: z.int().min(1),
  }),
});
export type GenerateTokenResponse = z.output<typeof generateTokenResponseSchema>;
