/**
 * Who may act for which account, and the replay guards of every signed thing the relay accepts:
 * - per account: signer grants `{signer -> permissions, expiry}` and the authNonce epoch (revoking
 *   a signer bumps it, voiding every intent signed under the old value);
 * - per account owner: the one-shot nonces of `AuthorizeAccountSigner` grants;
 * - per trading wallet: the last intent nonce, and its EIP-7702 delegation and 7702 nonce.
 *
 * Account ids and owners come from the matching engine's `Accounts`; this registry adds only what
 * the account-core and trading-wallet contracts keep. Times are Unix seconds (an expiry of 0 never
 * expires).
 */
import type { Address } from '../protocol/encoding.ts';

/** What the registry reads of the engine's `Accounts`. */
export interface AccountDirectory {
  get(id: bigint): { readonly owner: Address } | undefined;
  byOwnerAddress(owner: Address): { readonly id: bigint } | undefined;
}

/** One signer's grant on one account. */
export interface SignerGrant {
  /** Bit set of `Permission` (TRADE 1, INTERNAL_TRANSFER 4, WITHDRAW 8, ADMIN 16). */
  readonly permissions: number;
  /** Unix seconds after which the grant no longer holds; 0 = never. */
  readonly expiry: bigint;
}

/** A trading wallet's EIP-7702 delegation. */
export interface Delegation {
  readonly delegate: Address;
}

interface AccountAuth {
  readonly grants: Map<Address, SignerGrant>;
  authNonce: bigint;
}

/**
 * The signer registry of the venue.
 *
 * @example
 * const registry = new SignerRegistry(engine.accounts);
 * registry.grant(accountId, wallet, { permissions: Permission.TRADE, expiry: 0n });
 * registry.holds(accountId, wallet, Permission.TRADE, nowSec); // true
 */
export class SignerRegistry {
  private readonly accounts: AccountDirectory;
  private readonly auth = new Map<bigint, AccountAuth>();
  /** signer -> the accounts that granted it something, in grant order. */
  private readonly accountsOfSigner = new Map<Address, bigint[]>();
  private readonly usedAuthorizeNonces = new Map<Address, Set<bigint>>();
  private readonly lastIntentNonces = new Map<Address, bigint>();
  private readonly delegations = new Map<Address, Delegation>();
  private readonly nonces7702 = new Map<Address, bigint>();

  constructor(accounts: AccountDirectory) {
    this.accounts = accounts;
  }

  private authOf(accountId: bigint): AccountAuth {
    let auth = this.auth.get(accountId);
    if (auth === undefined) {
      auth = { grants: new Map(), authNonce: 0n };
      this.auth.set(accountId, auth);
    }
    return auth;
  }

  // ---- accounts and grants -------------------------------------------------------------------

  /** The owner of an account, or undefined when there is no such account. */
  ownerOf(accountId: bigint): Address | undefined {
    return this.accounts.get(accountId)?.owner;
  }

  /**
   * The account of `user`: the one it owns, else the first account that granted it (a grant that
   * expired still resolves: reads are harmless), else undefined.
   */
  resolveAccount(user: Address): bigint | undefined {
    const key = user.toLowerCase() as Address;
    const owned = this.accounts.byOwnerAddress(key);
    if (owned !== undefined) return owned.id;
    return this.accountsOfSigner.get(key)?.[0];
  }

  /** Gives (or replaces) `signer`'s grant on the account. */
  grant(accountId: bigint, signer: Address, grant: SignerGrant): void {
    const key = signer.toLowerCase() as Address;
    const { grants } = this.authOf(accountId);
    if (!grants.has(key)) {
      const list = this.accountsOfSigner.get(key);
      if (list === undefined) this.accountsOfSigner.set(key, [accountId]);
      else if (!list.includes(accountId)) list.push(accountId);
    }
    grants.set(key, { permissions: grant.permissions, expiry: grant.expiry });
  }

  /** Removes `signer`'s grant and bumps the account's authNonce. False when it held none. */
  revoke(accountId: bigint, signer: Address): boolean {
    const key = signer.toLowerCase() as Address;
    const auth = this.authOf(accountId);
    if (!auth.grants.delete(key)) return false;
    auth.authNonce += 1n;
    const list = this.accountsOfSigner.get(key);
    if (list !== undefined) {
      const rest = list.filter((id) => id !== accountId);
      if (rest.length === 0) this.accountsOfSigner.delete(key);
      else this.accountsOfSigner.set(key, rest);
    }
    return true;
  }

  /** `signer`'s grant on the account, expired or not. */
  grantOf(accountId: bigint, signer: Address): SignerGrant | undefined {
    return this.auth.get(accountId)?.grants.get(signer.toLowerCase() as Address);
  }

  /** True when `signer` holds an unexpired grant with every bit of `permission` at `nowSec`. */
  holds(accountId: bigint, signer: Address, permission: number, nowSec: bigint): boolean {
    const grant = this.grantOf(accountId, signer);
    if (grant === undefined || (grant.permissions & permission) !== permission) return false;
    return grant.expiry === 0n || grant.expiry >= nowSec;
  }

  /** The account's signer-authorization epoch (0 until a signer is revoked). */
  authNonce(accountId: bigint): bigint {
    return this.auth.get(accountId)?.authNonce ?? 0n;
  }

  // ---- replay guards -------------------------------------------------------------------------

  /** True when `owner` already used this `AuthorizeAccountSigner` nonce. */
  isAuthorizeNonceUsed(owner: Address, nonce: bigint): boolean {
    return this.usedAuthorizeNonces.get(owner.toLowerCase() as Address)?.has(nonce) ?? false;
  }

  useAuthorizeNonce(owner: Address, nonce: bigint): void {
    const key = owner.toLowerCase() as Address;
    let used = this.usedAuthorizeNonces.get(key);
    if (used === undefined) {
      used = new Set();
      this.usedAuthorizeNonces.set(key, used);
    }
    used.add(nonce);
  }

  /** The wallet's last accepted intent nonce (0 before any). */
  lastIntentNonce(wallet: Address): bigint {
    return this.lastIntentNonces.get(wallet.toLowerCase() as Address) ?? 0n;
  }

  setLastIntentNonce(wallet: Address, nonce: bigint): void {
    this.lastIntentNonces.set(wallet.toLowerCase() as Address, nonce);
  }

  // ---- EIP-7702 ------------------------------------------------------------------------------

  /** The wallet's current delegation, or undefined. */
  delegation(wallet: Address): Delegation | undefined {
    return this.delegations.get(wallet.toLowerCase() as Address);
  }

  setDelegation(wallet: Address, delegate: Address): void {
    this.delegations.set(wallet.toLowerCase() as Address, { delegate: delegate.toLowerCase() as Address });
  }

  /** The nonce the wallet's next EIP-7702 authorization must carry (0 at first). */
  nonce7702(wallet: Address): bigint {
    return this.nonces7702.get(wallet.toLowerCase() as Address) ?? 0n;
  }

  /** Consumes the wallet's current 7702 nonce. */
  bumpNonce7702(wallet: Address): void {
    const key = wallet.toLowerCase() as Address;
    this.nonces7702.set(key, (this.nonces7702.get(key) ?? 0n) + 1n);
  }
}
