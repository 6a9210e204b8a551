/**
 * Relay JWTs held per (network, wallet). A token is bound to the network it was issued for: it can
 * be read only under that network, and it never prints (toString, JSON and inspect redact it).
 */
import { BaseError } from '../core/base-error.ts';
import type { Address } from './encoding.ts';

const redacted = '[redacted JWT]';

/** A JWT that cannot leak into logs or errors by accident, nor be used on another network. */
export class BoundJwt {
  readonly #token: string;
  readonly network: string;
  readonly wallet: Address;
  /** Expiry, ms since the epoch. */
  readonly expiresAtMs: number;

  constructor(params: { token: string; network: string; wallet: Address; expiresAtMs: number }) {
    this.#token = params.token;
    this.network = params.network;
    this.wallet = params.wallet.toLowerCase() as Address;
    this.expiresAtMs = params.expiresAtMs;
  }

  /** The raw token, for an Authorization header of a request to `network` only. */
  reveal(network: string): string {
    if (network !== this.network) {
      throw new BaseError('JWT_NETWORK_MISMATCH', `a JWT issued for ${this.network} cannot be used on ${network}`, {
        details: { issuedFor: this.network, requestedFor: network },
      });
    }
    return this.#token;
  }

  toString(): string {
    return redacted;
  }

  toJSON(): string {
    return redacted;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return redacted;
  }
}

/**
 * JWTs by (network, wallet).
 *
 * @example
 * store.set(new BoundJwt({ token, network: 'testnet', wallet, expiresAtMs }));
 * store.get('testnet', wallet, clock.now())?.reveal('testnet');
 */
export class JwtStore {
  readonly #tokens = new Map<string, BoundJwt>();

  set(jwt: BoundJwt): void {
    this.#tokens.set(`${jwt.network}\u0000${jwt.wallet}`, jwt);
  }

  /** The token for (network, wallet) if it is still valid `marginMs` after `nowMs`. */
  get(network: string, wallet: Address, nowMs: number, marginMs = 0): BoundJwt | undefined {
    const jwt = this.#tokens.get(`${network}\u0000${wallet.toLowerCase()}`);
    return jwt && jwt.expiresAtMs > nowMs + marginMs ? jwt : undefined;
  }

  delete(network: string, wallet: Address): void {
    this.#tokens.delete(`${network}\u0000${wallet.toLowerCase()}`);
  }
}
