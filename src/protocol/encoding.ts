/**
 * Canonical wire encoding of relay values: integers as canonical unsigned decimal strings
 * (no sign, no leading zeros, no spaces, no exponent), addresses and byte strings as exact-width
 * lowercase `0x` hex. Encoders for outbound values, zod schemas for inbound ones.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';

const canonicalDecimal = /^(?:0|[1-9][0-9]*)$/;

/** The largest value of an unsigned integer of `bits` bits. */
export function uintMax(bits: number): bigint {
  return (1n << BigInt(bits)) - 1n;
}

/** Decimal digits of uintMax(bits), by bits. */
const maxDigits = new Map<number, number>();

/**
 * True when canonical decimal `text` fits `bits` bits. Texts shorter than the largest value need no
 * BigInt (the hot case: amounts and block numbers in every answer).
 */
export function fitsUint(text: string, bits: number): boolean {
  let digits = maxDigits.get(bits);
  if (digits === undefined) {
    digits = uintMax(bits).toString().length;
    maxDigits.set(bits, digits);
  }
  return text.length <= 78 && (text.length < digits || BigInt(text) <= uintMax(bits));
}

/** True when `text` is the canonical decimal form of an integer that fits `bits` bits. */
export function isCanonicalUint(text: string, bits: number): boolean {
  return canonicalDecimal.test(text) && fitsUint(text, bits);
}

/**
 * A bigint -> its canonical decimal string, checked against `bits`.
 *
 * @example encodeUint(42n, 64) // '42'
 */
export function encodeUint(value: bigint, bits: number): string {
  if (value < 0n || value > uintMax(bits)) {
    throw new BaseError('PROTOCOL_NON_CANONICAL', `value ${value} does not fit uint${bits}`, {
      details: { value: value.toString(), bits },
    });
  }
  return value.toString();
}

/**
 * A canonical decimal string -> bigint; anything else (sign, leading zero, space, exponent, too
 * large) throws PROTOCOL_NON_CANONICAL.
 */
export function decodeUint(text: string, bits: number): bigint {
  if (!isCanonicalUint(text, bits)) {
    throw new BaseError('PROTOCOL_NON_CANONICAL', `not a canonical uint${bits}: ${JSON.stringify(text.slice(0, 100))}`, {
      details: { bits },
    });
  }
  return BigInt(text);
}

/** Marks a zod issue as a canonical-form failure (as opposed to a range or shape failure). */
export const NON_CANONICAL_ISSUE = { nonCanonical: true } as const;

/** True when a zod issue is a canonical-form failure raised by the schemas of this module. */
export function isNonCanonicalIssue(issue: { code: string; params?: Record<string, unknown> | undefined }): boolean {
  return issue.code === 'custom' && issue.params?.nonCanonical === true;
}

/** zod: a canonical uint`bits` decimal string, kept as a string (for schemas that must round-trip). */
export function uintText(bits: number) {
  return z
    .string()
    .refine((text) => canonicalDecimal.test(text), {
      message: 'expected a canonical decimal integer string (no sign, leading zero, space or exponent)',
      params: NON_CANONICAL_ISSUE,
      abort: true,
    })
    .refine((text) => fitsUint(text, bits), { message: `exceeds uint${bits}` });
}

/** zod: a canonical uint`bits` decimal string, parsed to bigint. */
export function uintString(bits: number) {
  return uintText(bits).transform((text) => BigInt(text));
}

export type Hex = `0x${string}`;
export type Address = Hex;

/** True when `text` is `0x` and exactly `bytes` bytes of lowercase hex. */
export function isHexBytes(text: string, bytes: number): text is Hex {
  return text.length === 2 + bytes * 2 && /^0x[0-9a-f]*$/.test(text);
}

/** zod: exact-width lowercase hex of `bytes` bytes. */
export function hexBytes(bytes: number) {
  return z
    .string()
    .refine((text) => isHexBytes(text, bytes), {
      message: `expected 0x and ${bytes * 2} lowercase hex characters`,
      params: NON_CANONICAL_ISSUE,
    })
    .transform((text) => text as Hex);
}

/** zod: lowercase hex of any whole number of bytes (at most `maxBytes`). */
export function hexData(maxBytes: number) {
  return z
    .string()
    .refine((text) => text.length % 2 === 0 && /^0x[0-9a-f]*$/.test(text), {
      message: 'expected 0x and an even number of lowercase hex characters',
      params: NON_CANONICAL_ISSUE,
      abort: true,
    })
    .refine((text) => text.length <= 2 + maxBytes * 2, { message: `at most ${maxBytes} bytes` })
    .transform((text) => text as Hex);
}

/** zod: a lowercase 20-byte address (relay requests). */
export const lowercaseAddress = hexBytes(20);
/** An address in any case: `0x` and 40 hex characters. */
export const ANY_CASE_ADDRESS = /^0x[a-fA-F0-9]{40}$/;
/** zod: a 20-byte address in any case (inbound data and user input), normalised to lowercase. */
export const anyCaseAddress = z
  .string()
  .regex(ANY_CASE_ADDRESS, 'expected 0x and 40 hex characters')
  .transform((text) => text.toLowerCase() as Address);
/** zod: a 32-byte value, lowercase. */
export const bytes32 = hexBytes(32);
/** zod: a 65-byte signature `r ‖ s ‖ v`, lowercase. */
export const signature65 = hexBytes(65);

/** A bigint -> exact-width lowercase hex of `bytes` bytes. */
export function toHexBytes(value: bigint, bytes: number): Hex {
  if (value < 0n || value > uintMax(bytes * 8)) {
    throw new BaseError('PROTOCOL_NON_CANONICAL', `value does not fit ${bytes} bytes`, { details: { bytes } });
  }
  return `0x${value.toString(16).padStart(bytes * 2, '0')}`;
}
