/** The signer registry: grants, expiry, revocation and the authNonce epoch, replay guards, delegation. */
import { describe, expect, it } from 'vitest';
import { Permission } from '../../src/protocol/constants.ts';
import { Accounts } from '../../src/venue/accounts.ts';
import { SignerRegistry } from '../../src/venue/signer-registry.ts';

const OWNER = '0x00000000000000000000000000000000000000a1';
const SIGNER = '0x00000000000000000000000000000000000000b1';
const DELEGATE = '0x00000000000000000000000000000000000000d1';

function setup() {
  const accounts = new Accounts();
  const id = accounts.open(OWNER).id;
  return { accounts, id, registry: new SignerRegistry(accounts) };
}

describe('SignerRegistry', () => {
  it('resolves owners and granted signers (any case) to their account', () => {
    const { registry, id } = setup();
    expect(registry.resolveAccount(OWNER.toUpperCase().replace('0X', '0x') as typeof OWNER)).toBe(id);
    expect(registry.resolveAccount(SIGNER)).toBeUndefined();
    registry.grant(id, SIGNER, { permissions: Permission.TRADE, expiry: 0n });
    expect(registry.resolveAccount(SIGNER)).toBe(id);
    expect(registry.ownerOf(id)).toBe(OWNER);
    expect(registry.ownerOf(99n)).toBeUndefined();
  });

  it('holds a permission only with every bit and before the expiry (0 never expires)', () => {
    const { registry, id } = setup();
    registry.grant(id, SIGNER, { permissions: Permission.TRADE | Permission.WITHDRAW, expiry: 100n });
    expect(registry.holds(id, SIGNER, Permission.TRADE, 100n)).toBe(true);
    expect(registry.holds(id, SIGNER, Permission.TRADE, 101n)).toBe(false);
    expect(registry.holds(id, SIGNER, Permission.ADMIN, 50n)).toBe(false);
    expect(registry.holds(id, SIGNER, Permission.TRADE | Permission.ADMIN, 50n)).toBe(false);
    registry.grant(id, SIGNER, { permissions: Permission.TRADE, expiry: 0n });
    expect(registry.holds(id, SIGNER, Permission.TRADE, 10n ** 12n)).toBe(true);
  });

  it('bumps the authNonce when a signer is revoked', () => {
    const { registry, id } = setup();
    expect(registry.authNonce(id)).toBe(0n);
    expect(registry.revoke(id, SIGNER)).toBe(false);
    registry.grant(id, SIGNER, { permissions: Permission.TRADE, expiry: 0n });
    expect(registry.revoke(id, SIGNER)).toBe(true);
    expect(registry.authNonce(id)).toBe(1n);
    expect(registry.holds(id, SIGNER, Permission.TRADE, 0n)).toBe(false);
    expect(registry.resolveAccount(SIGNER)).toBeUndefined();
  });

  it('keeps the replay guards: one-shot authorization nonces, last intent nonce, 7702 nonce and delegation', () => {
    const { registry } = setup();
    expect(registry.isAuthorizeNonceUsed(OWNER, 5n)).toBe(false);
    registry.useAuthorizeNonce(OWNER, 5n);
    expect(registry.isAuthorizeNonceUsed(OWNER, 5n)).toBe(true);
    expect(registry.isAuthorizeNonceUsed(OWNER, 6n)).toBe(false);
    expect(registry.lastIntentNonce(SIGNER)).toBe(0n);
    registry.setLastIntentNonce(SIGNER, 42n);
    expect(registry.lastIntentNonce(SIGNER)).toBe(42n);
    expect(registry.nonce7702(SIGNER)).toBe(0n);
    registry.bumpNonce7702(SIGNER);
    expect(registry.nonce7702(SIGNER)).toBe(1n);
    expect(registry.delegation(SIGNER)).toBeUndefined();
    registry.setDelegation(SIGNER, DELEGATE);
    expect(registry.delegation(SIGNER)).toEqual({ delegate: DELEGATE });
  });
});
