/**
 * The simulated venue as a service, without a network: the venue model and its background order
 * flow, every HTTP route behind one dispatcher (market data, user data, tokens and quotes, relay auth
 * and REST, JSON-RPC, `/sim`), the relay WebSocket's hub, and the fault model they all consult. Two
 * faces put it on a wire: `createSimServer` (node:http and `ws` on loopback, `clobbot sim`) and the
 * in-process connection (src/runtime, virtual time); both answer through this one service, so the
 * rules cannot drift apart.
 *
 * Faults live in one fault model (fault-model.ts), seeded by `random`: standing settings from
 * `config.faults` (changed by `POST /sim/faults` or `faults.set`), one-shot actions (`faults.apply`,
 * `POST /sim/faults/actions`) and scripts at clock times (`faults.schedule`, `POST /sim/faults/script`).
 */
import { randomFillSync } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { SimConfig } from '../config/sim-config.ts';
import { createSimVenue } from '../venue/create-sim-venue.ts';
import type { SimVenue, SimVenueModel } from '../venue/sim-venue.ts';
import type { OutsideLiquidity } from '../venue/outside-liquidity.ts';
import { WS_CLOSE_PENDING_OUTCOME_LIMIT } from '../protocol/constants.ts';
import { createFaultModel, type FaultModel } from './fault-model.ts';
import { jsonRpcRoute } from './json-rpc-route.ts';
import { JwtSecret } from './jwt.ts';
import { marketAndUserRoutes } from './market-and-user-routes.ts';
import { createRelayAuth } from './relay-auth-routes.ts';
import { relayRestRoute } from './relay-rest-route.ts';
import { createRelayWsHub, WS_CLOSE_REASON, type RelayWsHub } from './relay-ws-hub.ts';
import { createSimDispatch, type SimDispatch } from './route-dispatch.ts';
import { simRoutes } from './sim-routes.ts';

export interface CreateSimServiceParameters {
  readonly config: SimConfig;
  readonly clock: Clock;
  /** Seeded randomness of the simulation's faults. */
  readonly random: RandomSource;
  /**
   * Where challenge ids and JWT keys come from. Default: the operating system's CSPRNG, so two
   * venues with the same seed never accept each other's tokens. A virtual run passes a seeded source.
   */
  readonly secrets?: RandomSource;
  readonly logger: Logger;
  /** Seed mixed into every market's background flow seed (`clobbot sim --seed`); absent: the configured seeds. */
  readonly seed?: number;
  /** Runs the configured background order flow. Default true. */
  readonly backgroundFlow?: boolean;
  /** Backtests: a replayed market. Relayed transactions meet its liquidity; market data is answered from it. */
  readonly replay?: SimReplay;
}

/** What a backtest puts in place of the venue's own market (src/backtest/replay-venue.ts). */
export interface SimReplay {
  readonly outsideLiquidity: OutsideLiquidity;
  /** The market-data answers (depth, trades, klines, ticker), given the venue for its own orders. */
  marketData(venue: SimVenueModel): Pick<SimVenue, 'depth' | 'trades' | 'klines' | 'ticker24hr'>;
}

export interface SimService {
  /** The venue model (tests step or stop its blocks). */
  readonly venue: SimVenueModel;
  /** The venue's faults: settings (`GET /sim/faults`), actions at once and scripts on the clock. */
  readonly faults: FaultModel;
  /** Every HTTP route of every host. */
  readonly dispatch: SimDispatch;
  /** The relay WebSocket's rules. */
  readonly relayWs: RelayWsHub;
  /** Starts the venue's blocks and background flow. Idempotent. */
  start(): void;
  /** Closes the relay connections (1001), stops the flow and the blocks. Idempotent. */
  stop(): void;
}

/** The operating system's CSPRNG as a RandomSource (secrets; the simulation when unseeded). */
export function cryptoRandom(): RandomSource {
  const word = new Uint32Array(1);
  return {
    next: () => randomFillSync(word)[0]! / 4294967296,
    fill: (bytes) => randomFillSync(bytes),
  };
}

function jwtSecret(random: RandomSource): JwtSecret {
  return JwtSecret.fromBytes(random.fill(new Uint8Array(32)));
}

/**
 * @example
 * const service = createSimService({ config, clock: new VirtualClock(Date.UTC(2025, 0, 1)), random: seededRandom(1), logger });
 * service.start();
 * const answer = await service.dispatch({ method: 'GET', target: '/api/v3/exchangeInfo', headers: {}, readBody: async () => ({ ok: true, text: '' }), ip: '127.0.0.1' });
 */
export function createSimService(parameters: CreateSimServiceParameters): SimService {
  const { config, clock, random, logger } = parameters;
  const secrets = parameters.secrets ?? cryptoRandom();
  const venue = createSimVenue({
    config,
    clock,
    backgroundFlow: parameters.backgroundFlow ?? true,
    ...(parameters.seed === undefined ? {} : { seed: parameters.seed }),
    ...(parameters.replay === undefined ? {} : { outsideLiquidity: parameters.replay.outsideLiquidity }),
  });
  // Market data of a replay: the venue's model with its market-data answers taken from the replay.
  const served: SimVenueModel = parameters.replay === undefined ? venue : Object.assign(Object.create(venue) as SimVenueModel, parameters.replay.marketData(venue));

  const faults = createFaultModel({ clock, random, settings: config.faults, logger: logger.child({ component: 'faults' }) });

  const auth = createRelayAuth(
    { clock, random: secrets, logger: logger.child({ component: 'relay-auth' }) },
    { chainId: config.chainId, jwtLifetimeSec: config.auth.jwtLifetimeSec, secret: jwtSecret(secrets) },
  );
  const relayWs = createRelayWsHub({ venue, auth, clock, logger: logger.child({ component: 'relay-ws' }), faults });
  // The connection faults the model announces, carried out by the hub and the auth.
  const faultEvents = faults.events$.subscribe((event) => {
    if (event === 'drop-connections') relayWs.dropAll();
    else if (event === 'close-pending-outcome-limit') relayWs.closeAll(WS_CLOSE_PENDING_OUTCOME_LIMIT, WS_CLOSE_REASON.pendingOutcomeLimit);
    else auth.expireIssuedTokens();
  });
  const routes = [
    ...marketAndUserRoutes(served, { config, clock, random, secret: jwtSecret(secrets), faults }),
    ...auth.routes,
    relayRestRoute({ venue, auth, logger: logger.child({ component: 'relay' }), faults }),
    jsonRpcRoute({ venue, chainId: config.chainId }),
    ...simRoutes({ venue, faults, clock }),
  ];
  const dispatch = createSimDispatch({ routes, maxBodyBytes: config.http.maxBodyBytes, logger: logger.child({ component: 'http' }) });

  let stopped = false;
  return {
    venue,
    faults,
    dispatch,
    relayWs,
    start: () => venue.start(),
    stop() {
      if (stopped) return;
      stopped = true;
      faultEvents.unsubscribe();
      faults.stop();
      relayWs.stop();
      venue.stop();
    },
  };
}
