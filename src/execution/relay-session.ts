/**
 * The relay session of one (network, wallet): sign in (challenge, `personal_sign`, token, through
 * `relay-auth-client`), keep the JWT in a JwtStore as a BoundJwt, and renew it before it expires.
 *
 * Renewal rule: a JWT of lifetime L (its `expiresAt` minus the time it arrived) is renewed at
 * `expiresAt - margin`, margin = min(60 s, L / 10), on `clock.scheduler`. A failed renewal is tried
 * again after 1 s, 2 s, 4 s … (at most 30 s) while the session runs. `token()` hands out the
 * current JWT while more than half the margin is left, and otherwise signs in first; concurrent
 * callers share one sign-in. `invalidate()` (the relay answered 401) forgets the JWT: the next
 * `token()` signs in once more, and throws if that fails (no loop).
 *
 * A JWT is issued for one network and revealed only for it (`BoundJwt.reveal`): this session's
 * `token()` never returns a JWT of another network, whatever the store holds.
 */
import { backoffMs, type BackoffPolicy } from '../core/backoff.ts';
import { BaseError } from '../core/base-error.ts';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Logger } from '../core/logger.ts';
import type { Address } from '../protocol/encoding.ts';
import { JwtStore, type BoundJwt } from '../protocol/jwt-store.ts';
import type { MessageSigner } from '../protocol/personal-sign.ts';
import { createRelayAuthClient, type RelayAuthClient } from '../clients/relay-auth-client.ts';
import type { RelayTokenSource } from '../clients/relay-ws-client.ts';
import type { ClientContext } from '../clients/send-request.ts';

/** Largest renewal margin. */
export const MAX_RENEW_MARGIN_MS = 60_000;
/** Margin as a fraction of the lifetime, for short-lived JWTs. */
export const RENEW_MARGIN_FRACTION = 0.1;

/**
 * How long before `expiresAt` a JWT of lifetime `lifetimeMs` is renewed: min(60 s, 10 % of it).
 *
 * @example renewMarginMs(3_600_000) // 60_000
 * @example renewMarginMs(3_000) // 300
 */
export function renewMarginMs(lifetimeMs: number): number {
  return Math.max(0, Math.min(MAX_RENEW_MARGIN_MS, Math.floor(lifetimeMs * RENEW_MARGIN_FRACTION)));
}

export interface RelaySessionParameters {
  readonly network: string;
  /** `{relay_url}` of the network. */
  readonly relayUrl: string;
  /** The trading wallet (anything that can `personal_sign`). */
  readonly signer: MessageSigner;
  /** Where JWTs are kept; default a store of this session's own. */
  readonly store?: JwtStore;
  /** The sign-in client; default one over `context` for `relayUrl`. */
  readonly auth?: RelayAuthClient;
  /** First wait after a failed renewal; doubles up to 30 s. Default 1 000 ms. */
  readonly retryDelayMs?: number;
  readonly logger?: Logger;
}

export interface RelaySession extends RelayTokenSource {
  readonly network: string;
  readonly wallet: Address;
  readonly store: JwtStore;
  /** Each JWT the session obtains (first sign-in and renewals). */
  readonly renewals$: Observable<BoundJwt>;
  /** Signs in now and keeps renewing. Idempotent. Throws RelayAuthError (or a transport error) when the sign-in fails. */
  start(): Promise<BoundJwt>;
  /** The current JWT, signing in when there is none or too little of it is left. */
  token(): Promise<BoundJwt>;
  /** The current JWT without signing in (undefined when none or expired). */
  current(): BoundJwt | undefined;
  /** Forgets the JWT (the relay refused it); the next `token()` signs in once more. */
  invalidate(): void;
  /** Stops renewing and forgets the JWT. Idempotent. */
  stop(): void;
}

interface Held {
  readonly jwt: BoundJwt;
  readonly marginMs: number;
}

/**
 * @example
 * const session = createRelaySession(context, { network: network.name, relayUrl: network.hosts.relayUrl!, signer: wallet.account });
 * await session.start();
 * const jwt = await session.token(); // jwt.reveal(network.name) for an Authorization header
 */
export function createRelaySession(context: ClientContext & { readonly logger?: Logger }, params: RelaySessionParameters): RelaySession {
  const { clock } = context;
  const logger = params.logger ?? context.logger;
  const { network, signer } = params;
  const wallet = signer.address.toLowerCase() as Address;
  const store = params.store ?? new JwtStore();
  const auth = params.auth ?? createRelayAuthClient(context, { baseUrl: params.relayUrl, network, store });
  const retryBackoff: BackoffPolicy = { initialMs: params.retryDelayMs ?? 1_000, factor: 2, maxMs: 30_000 };
  const renewals$ = new Subject<BoundJwt>();

  let held: Held | undefined;
  let signingIn: Promise<BoundJwt> | undefined;
  let renewTimer: Subscription | undefined;
  let running = false;
  let stopped = false;
  let retries = 0;

  const usable = (now: number): BoundJwt | undefined => {
    if (held === undefined || held.jwt.network !== network) return undefined;
    return held.jwt.expiresAtMs - now > held.marginMs / 2 ? held.jwt : undefined;
  };

  const schedule = (delayMs: number) => {
    renewTimer?.unsubscribe();
    renewTimer = clock.scheduler.schedule(() => {
      renewTimer = undefined;
      renew();
    }, Math.max(0, delayMs));
  };

  const signIn = (): Promise<BoundJwt> => {
    if (stopped) return Promise.reject(new BaseError('RELAY_SESSION_STOPPED', `the relay session of ${wallet} on ${network} is stopped`));
    signingIn ??= (async () => {
      try {
        const jwt = await auth.authenticate(signer);
        const now = clock.now();
        const lifetimeMs = jwt.expiresAtMs - now;
        const marginMs = renewMarginMs(lifetimeMs);
        if (stopped) {
          store.delete(network, wallet);
          throw new BaseError('RELAY_SESSION_STOPPED', `the relay session of ${wallet} on ${network} is stopped`);
        }
        held = { jwt, marginMs };
        retries = 0;
        if (running) schedule(jwt.expiresAtMs - marginMs - now);
        logger?.info({ network, wallet, expiresAtMs: jwt.expiresAtMs, renewInMs: Math.max(0, jwt.expiresAtMs - marginMs - now) }, 'relay session signed in');
        renewals$.next(jwt);
        return jwt;
      } finally {
        signingIn = undefined;
      }
    })();
    return signingIn;
  };

  const renew = () => {
    if (!running || stopped) return;
    signIn().catch((error: unknown) => {
      if (!running || stopped) return;
      retries += 1;
      const delay = backoffMs(retries, retryBackoff);
      logger?.warn({ err: error, network, wallet, retryInMs: delay }, 'relay session renewal failed');
      schedule(delay);
    });
  };

  return {
    network,
    wallet,
    store,
    renewals$: renewals$.asObservable(),

    async start() {
      if (stopped) throw new BaseError('RELAY_SESSION_STOPPED', `the relay session of ${wallet} on ${network} is stopped`);
      running = true;
      const jwt = usable(clock.now());
      if (jwt !== undefined) {
        if (renewTimer === undefined && held !== undefined) schedule(held.jwt.expiresAtMs - held.marginMs - clock.now());
        return jwt;
      }
      return signIn();
    },

    async token() {
      if (stopped) throw new BaseError('RELAY_SESSION_STOPPED', `the relay session of ${wallet} on ${network} is stopped`);
      return usable(clock.now()) ?? signIn();
    },

    current: () => usable(clock.now()),

    invalidate() {
      if (held !== undefined) logger?.info({ network, wallet }, 'relay session: JWT refused, signing in again on next use');
      held = undefined;
      store.delete(network, wallet);
      renewTimer?.unsubscribe();
      renewTimer = undefined;
    },

    stop() {
      if (stopped) return;
      stopped = true;
      running = false;
      renewTimer?.unsubscribe();
      renewTimer = undefined;
      held = undefined;
      store.delete(network, wallet);
      renewals$.complete();
    },
  };
}
