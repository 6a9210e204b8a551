import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { liveClock } from '../../src/core/clock.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { isBaseError } from '../../src/core/base-error.ts';
import { createRelaySession, renewMarginMs } from '../../src/execution/relay-session.ts';
import { BoundJwt, JwtStore } from '../../src/protocol/jwt-store.ts';
import { OTHER_WALLET, WALLET, lower, startTestVenue, type TestVenue } from '../sim/relay-harness.ts';
import { clientContext, oneTurn, recordingTransport } from './relay-support.ts';

let venue: TestVenue | undefined;
afterEach(async () => {
  await venue?.stop();
  venue = undefined;
});

const tokenExchanges = (requests: readonly { url: string }[]) => requests.filter((request) => request.url.endsWith('/auth/token')).length;

describe('renewMarginMs', () => {
  it('is 10 % of the lifetime, at most 60 s', () => {
    expect(renewMarginMs(3_000)).toBe(300);
    expect(renewMarginMs(600_000)).toBe(60_000);
    expect(renewMarginMs(3_600_000)).toBe(60_000);
    expect(renewMarginMs(-5)).toBe(0);
  });
});

describe('relay session', () => {
  it('signs in, then renews before expiresAt on the clock (venue and session share a virtual clock)', async () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1, 12, 0, 0, 100));
    venue = await startTestVenue({ clock, jwtLifetimeSec: 3 });
    const { transport, requests } = recordingTransport();
    const session = createRelaySession(clientContext(clock, transport), { network: 'sim', relayUrl: venue.url, signer: WALLET });
    const first = await session.start();
    expect(first.network).toBe('sim');
    expect(first.wallet).toBe(lower(WALLET));
    // exp is whole seconds: 12:00:03
    expect(first.expiresAtMs).toBe(Date.UTC(2025, 0, 1, 12, 0, 3));
    expect(tokenExchanges(requests)).toBe(1);
    expect(session.store.get('sim', lower(WALLET), clock.now())).toBe(first);

    // Lifetime 2 900 ms, margin 290 ms: nothing happens before 12:00:02.710 …
    clock.advanceTo(Date.UTC(2025, 0, 1, 12, 0, 2, 709));
    // A renewal starts with its challenge request within one event-loop turn (as at 2.710 below).
    await oneTurn();
    expect(requests).toHaveLength(2);
    expect(await session.token()).toBe(first);
    // … then it signs in again, before the first JWT expires.
    const renewed = firstValueFrom(session.renewals$);
    clock.advanceTo(Date.UTC(2025, 0, 1, 12, 0, 2, 710));
    await oneTurn();
    expect(requests.map((request) => new URL(request.url).pathname)).toEqual(['/auth/challenge', '/auth/token', '/auth/challenge']);
    const second = await renewed;
    expect(session.current()).toBe(second);
    expect(tokenExchanges(requests)).toBe(2);
    expect(second.expiresAtMs).toBe(Date.UTC(2025, 0, 1, 12, 0, 5));
    expect(await session.token()).toBe(second);
    expect(session.store.get('sim', lower(WALLET), clock.now())).toBe(second);

    // The JWT is only ever in a header, never in a URL.
    const jwt = second.reveal('sim');
    for (const request of requests) expect(request.url).not.toContain(jwt.slice(0, 20));
    session.stop();
  });

  it('keeps renewing with the live clock and a 2 s JWT', async () => {
    venue = await startTestVenue({ jwtLifetimeSec: 2 });
    const { transport, requests } = recordingTransport();
    const session = createRelaySession(clientContext(liveClock, transport), { network: 'sim', relayUrl: venue.url, signer: WALLET });
    const renewals: BoundJwt[] = [];
    let ended = false;
    session.renewals$.subscribe({ next: (jwt) => renewals.push(jwt), complete: () => (ended = true) });
    const first = await session.start();
    const renewed = await firstValueFrom(session.renewals$);
    // Renewed while the first was still valid.
    expect(renewed.expiresAtMs).toBeGreaterThan(first.expiresAtMs);
    expect(renewals).toEqual([first, renewed]);
    expect(tokenExchanges(requests)).toBe(2);
    // Stopped: the renewals end (nothing more can come).
    session.stop();
    expect(ended).toBe(true);
    await expect(session.token()).rejects.toSatisfy((error) => isBaseError(error) && (error.code as string) === 'RELAY_SESSION_STOPPED');
  });

  it('signs in once more after invalidate(), and shares one sign-in between concurrent callers', async () => {
    venue = await startTestVenue();
    const { transport, requests } = recordingTransport();
    const session = createRelaySession(clientContext(liveClock, transport), { network: 'sim', relayUrl: venue.url, signer: WALLET });
    const [a, b, c] = await Promise.all([session.token(), session.token(), session.token()]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(tokenExchanges(requests)).toBe(1);
    session.invalidate();
    expect(session.current()).toBeUndefined();
    expect(session.store.get('sim', lower(WALLET), Date.now())).toBeUndefined();
    const next = await session.token();
    expect(next).not.toBe(a);
    expect(tokenExchanges(requests)).toBe(2);
    session.stop();
  });

  it('after invalidate(), a sign-in that fails is reported, not retried in a loop', async () => {
    venue = await startTestVenue();
    const { transport, requests } = recordingTransport();
    const session = createRelaySession(clientContext(liveClock, transport), { network: 'sim', relayUrl: venue.url, signer: WALLET });
    await session.start();
    await venue.stop();
    venue = undefined;
    session.invalidate();
    await expect(session.token()).rejects.toSatisfy((error) => isBaseError(error, 'HTTP_UNAVAILABLE'));
    const challenges = requests.filter((request) => request.url.endsWith('/auth/challenge')).length;
    expect(challenges).toBe(2);
    session.stop();
  });

  it("never hands out another network's JWT, whatever the shared store holds", async () => {
    venue = await startTestVenue();
    const store = new JwtStore();
    const testnetJwt = new BoundJwt({ token: 'testnet-token', network: 'testnet', wallet: lower(WALLET), expiresAtMs: Date.now() + 3_600_000 });
    store.set(testnetJwt);
    const session = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: venue.url, signer: WALLET, store });
    const jwt = await session.token();
    expect(jwt).not.toBe(testnetJwt);
    expect(jwt.network).toBe('sim');
    expect(() => jwt.reveal('testnet')).toThrow(/cannot be used on testnet/);
    // Both stay, each under its own network.
    expect(store.get('testnet', lower(WALLET), Date.now())).toBe(testnetJwt);
    expect(store.get('sim', lower(WALLET), Date.now())).toBe(jwt);
    // Another wallet's session does not see it either.
    const other = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: venue.url, signer: OTHER_WALLET, store });
    expect(other.current()).toBeUndefined();
    expect(String(jwt)).toBe('[redacted JWT]');
    session.stop();
    other.stop();
  });
});
