/**
 * Relay authentication (venue): `POST /auth/challenge` {wallet} -> challenge; the wallet
 * `personal_sign`s the exact message; `POST /auth/token` {challengeId, signature} -> JWT.
 */
import { z } from 'zod';
import { anyCaseAddress, lowercaseAddress, signature65 } from './encoding.ts';

const isoTimestamp = z.string().refine((text) => !Number.isNaN(Date.parse(text)) && /^\d{4}-\d{2}-\d{2}T/.test(text), {
  message: 'expected an ISO 8601 timestamp',
});

export const challengeRequestSchema = z.strictObject({ wallet: lowercaseAddress });
export const challengeResponseSchema = z.object({
  challengeId: z.string().regex(/^[0-9a-f]{32}$/, 'expected 32 lowercase hex characters'),
  message: z.string().min(1),
  expiresAt: isoTimestamp,
});

export const tokenRequestSchema = z.strictObject({
  challengeId: z.string().regex(/^[0-9a-f]{32}$/, 'expected 32 lowercase hex characters'),
  signature: signature65,
});
export const tokenResponseSchema = z.object({
  accessToken: z.string().min(1),
  tokenType: z.literal('Bearer'),
  expiresAt: isoTimestamp,
  wallet: anyCaseAddress,
});

/** The claims of a relay JWT that clobbot relies on; `wallet` is our choice of claim name. */
export const relayJwtClaimsSchema = z.object({
  wallet: anyCaseAddress,
  exp: z.number().int().positive(),
});

export type ChallengeRequest = z.output<typeof challengeRequestSchema>;
export type ChallengeResponse = z.output<typeof challengeResponseSchema>;
export type TokenRequest = z.output<typeof tokenRequestSchema>;
export type TokenResponse = z.output<typeof tokenResponseSchema>;
export type RelayJwtClaims = z.output<typeof relayJwtClaimsSchema>;
