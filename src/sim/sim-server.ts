/**
 * The simulated venue on the network: the venue model, its background order flow, every HTTP route
 * (market data, user data, tokens and quotes, relay auth and REST, JSON-RPC, `/sim`) and the relay
 * WebSocket, on one port. This is what `clobbot sim` runs and what integration tests start.
 *
 * Fault settings start from `config.faults` and can be changed at runtime with `POST /sim/faults`;
 * every component reads the current settings.
 */
import { randomFillSync } from 'node:crypto';
import { BehaviorSubject } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { SimConfig } from '../config/sim-config.ts';
import { createSimVenue } from '../venue/create-sim-venue.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import { createHttpServer, type HttpServer, type ListeningAddress } from './http-server.ts';
import { jsonRpcRoute } from './json-rpc-route.ts';
import { JwtSecret } from './jwt.ts';
import { marketAndUserRoutes } from './market-and-user-routes.ts';
import { createRelayAuth } from './relay-auth-routes.ts';
import { relayRestRoute } from './relay-rest-route.ts';
import { createRelayWs, type RelayWs } from './relay-ws.ts';
import { simRoutes, type FaultSettings, type SimFaults } from './sim-routes.ts';

export interface CreateSimServerParameters {
  readonly config: SimConfig;
  readonly clock: Clock;
  /** Seeded randomness of the simulation's faults. */
  readonly random: RandomSource;
  /**
   * Where challenge ids and JWT keys come from. Default: the operating system's CSPRNG, so two
   * servers with the same seed never accept each other's tokens.
   */
  readonly secrets?: RandomSource;
  readonly logger: Logger;
  /** Seed mixed into every market's background flow seed (`clobbot sim --seed`); absent: the configured seeds. */
  readonly seed?: number;
  /** Runs the configured background order flow. Default true. */
  readonly backgroundFlow?: boolean;
}

export interface StartParameters {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

export interface SimServer {
  /** The venue model behind the server (tests step or stop its blocks). */
  readonly venue: SimVenueModel;
  /** The current fault settings (the same as `GET /sim/faults`). */
  readonly faults: FaultSettings;
  /** The relay WebSocket (connection and pending-outcome counts). */
  readonly relayWs: Pick<RelayWs, 'connectionCount' | 'pendingOutcomeCount'>;
  /** Starts the venue (blocks, background flow), then listens. Resolves with the base URL. */
  start(parameters: StartParameters): Promise<ListeningAddress>;
  /** Closes every WebSocket (1001) and connection, stops the flow and the blocks. Idempotent. */
  stop(): Promise<void>;
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
 * The whole simulated venue behind one HTTP server.
 *
 * @example
 * const server = createSimServer({ config, clock: liveClock, random: seededRandom(1), logger });
 * const { url } = await server.start({ port: 0 }); // http://127.0.0.1:40123
 * await server.stop();
 */
export function createSimServer(parameters: CreateSimServerParameters): SimServer {
  const { config, clock, random, logger } = parameters;
  const secrets = parameters.secrets ?? cryptoRandom();
  const venue = createSimVenue({
    config,
    clock,
    backgroundFlow: parameters.backgroundFlow ?? true,
    ...(parameters.seed === undefined ? {} : { seed: parameters.seed }),
  });

  // One mutable object read by the market-data routes on every request, and a subject for the relay WebSocket.
  const current: { -readonly [K in keyof SimFaults]: SimFaults[K] } = { ...config.faults };
  const faults$ = new BehaviorSubject<SimFaults>({ ...current });
  const faults: FaultSettings = {
    get: () => ({ ...current }),
    set(next) {
      Object.assign(current, next);
      logger.info({ faults: current }, 'sim faults changed');
      faults$.next({ ...current });
    },
  };

  const auth = createRelayAuth(
    { clock, random: secrets, logger: logger.child({ component: 'relay-auth' }) },
    { chainId: config.chainId, jwtLifetimeSec: config.auth.jwtLifetimeSec, secret: jwtSecret(secrets) },
  );
  const relayWs = createRelayWs(
    { venue, auth, clock, random, logger: logger.child({ component: 'relay-ws' }), faults$ },
    { maxPayloadBytes: config.http.maxBodyBytes },
  );
  const routes = [
    ...marketAndUserRoutes(venue, { config, clock, random, secret: jwtSecret(secrets), faults: current }),
    ...auth.routes,
    relayRestRoute({
      venue,
      auth,
      random,
      logger: logger.child({ component: 'relay' }),
      unknownResponseRate: () => current.unknownResponseRate,
    }),
    jsonRpcRoute({ venue, chainId: config.chainId }),
    ...simRoutes({ venue, faults }),
  ];
  const http: HttpServer = createHttpServer({
    routes,
    upgrade: relayWs.upgrade,
    maxBodyBytes: config.http.maxBodyBytes,
    logger: logger.child({ component: 'http' }),
    clock,
  });

  let stopping: Promise<void> | undefined;
  return {
    venue,
    faults,
    relayWs,
    async start({ port, host = '127.0.0.1' }) {
      venue.start();
      return http.listen(port, host);
    },
    stop() {
      stopping ??= (async () => {
        await relayWs.close();
        await http.close();
        venue.stop();
        faults$.complete();
      })();
      return stopping;
    },
  };
}
