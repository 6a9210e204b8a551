/**
 * The local venue in the same process, without a network: the sim service (the venue model, its
 * routes and its relay WebSocket hub, src/sim/sim-service.ts) reached through an HttpTransport and a
 * relay socket factory that hand requests and frames to it directly, each after a drawn delay on the
 * clock. Every client of the bot runs unchanged over it, so a run on a VirtualClock trades exactly as
 * it would against `clobbot sim`, only without waiting.
 *
 * Faults come from the service's one fault model (src/sim/fault-model.ts), the same the `/sim` fault
 * routes drive: `service.faults.apply(action)` at once, `service.faults.schedule(script)` at clock
 * times, and the `faults` script given here, counted from `start()` (a run file's `virtual.faults`).
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { seededRandom, type RandomSource } from '../core/random.ts';
import type { SimConfig } from '../config/sim-config.ts';
import type { FaultScriptInput } from '../config/fault-config.ts';
import type { VirtualConfig } from '../config/virtual-config.ts';
import type { HttpTransport } from '../clients/http-transport.ts';
import type { WebSocketFactory } from '../clients/relay-socket.ts';
import { createSimService, type SimReplay, type SimService } from '../sim/sim-service.ts';
import type { SimDispatch } from '../sim/route-dispatch.ts';
import type { RelayWsHub } from '../sim/relay-ws-hub.ts';
import { createInProcessHttpTransport, type ConnectionLatency } from './in-process-http.ts';
import { inProcessSocketFactory } from './in-process-relay-socket.ts';
import { latencySampler } from './latency-sampler.ts';
import { createPendingWork, type PendingWork } from './pending-work.ts';

/** The base URL every host of the in-process venue shares (never resolved: nothing leaves the process). */
export const IN_PROCESS_VENUE_URL = 'http://venue.in-process';

/** Seed of the JSON-RPC delays (their own stream, see `rpc` below). */
const RPC_LATENCY_SEED = 0x7c11;

export interface InProcessVenue {
  /** The venue's service: after a `restart`, the new one. */
  readonly service: SimService;
  /** `IN_PROCESS_VENUE_URL`: the sim hosts derive from it (`simHosts`). */
  readonly url: string;
  /** The clients' HTTP seam over the service. */
  readonly transport: HttpTransport;
  /** The relay WebSocket client's socket factory over the service's hub. */
  readonly createSocket: WebSocketFactory;
  /** Starts the venue's blocks and background flow. Idempotent. */
  start(): void;
  /** Stops the venue (closes relay connections). Idempotent. */
  stop(): void;
  /**
   * A venue crash and restart with its state wiped (a `clobbot sim` killed and started again): every
   * relay connection drops (1006), nothing answers (HTTP requests fail, upgrades are refused with 503)
   * for `downMs` of clock time, then a fresh service of the same config starts (new JWT keys, no
   * accounts but the configured ones, empty books but the background flow's). Resolves once it is up.
   */
  restart(options: { readonly downMs: number }): Promise<void>;
}

export interface CreateInProcessVenueParameters {
  readonly config: SimConfig;
  readonly clock: Clock;
  /** Seeds the venue's faults (`random`), its secrets (JWT keys, challenge ids) and the connection's delays. */
  readonly random: RandomSource;
  readonly secrets: RandomSource;
  readonly latencyRandom: RandomSource;
  readonly latency: VirtualConfig['latency'];
  readonly logger: Logger;
  /** Counts the venue's work under way (the virtual driver waits for it). Default: a counter of its own. */
  readonly pending?: PendingWork;
  /** Runs the configured background order flow. Default true. */
  readonly backgroundFlow?: boolean;
  /** Mixed into every market's flow seed. */
  readonly seed?: number;
  /** Faults at times counted from `start()` (a run file's `virtual.faults`). Default none. */
  readonly faults?: FaultScriptInput;
  /** Backtests: the replayed market in place of the venue's own (sim-service.ts). */
  readonly replay?: SimReplay;
}

/**
 * @example
 * const venue = createInProcessVenue({ config, clock, random: seededRandom(1), secrets: seededRandom(2), latencyRandom: seededRandom(3), latency, logger });
 * venue.start();
 * const context = { transport: venue.transport, clock, random };
 */
export function createInProcessVenue(params: CreateInProcessVenueParameters): InProcessVenue {
  const { clock } = params;
  const createService = () =>
    createSimService({
      config: params.config,
      clock,
      random: params.random,
      secrets: params.secrets,
      logger: params.logger,
      backgroundFlow: params.backgroundFlow ?? true,
      ...(params.seed === undefined ? {} : { seed: params.seed }),
      ...(params.replay === undefined ? {} : { replay: params.replay }),
    });
  let service = createService();
  /** True while the venue is down (between a restart's crash and its fresh start). */
  let down = false;
  const latency: ConnectionLatency = {
    relay: latencySampler(params.latency.relay, params.latencyRandom),
    marketData: latencySampler(params.latency.marketData, params.latencyRandom),
    userData: latencySampler(params.latency.userData, params.latencyRandom),
    // Its own stream: the engine's periodic chain reads, however many, move no other request's delay.
    rpc: latencySampler(params.latency.userData, seededRandom(RPC_LATENCY_SEED)),
  };
  const origin = new URL(IN_PROCESS_VENUE_URL).origin;
  const pending = params.pending ?? createPendingWork();
  // The clients reach whichever service runs now; while down nothing answers.
  const dispatch: SimDispatch = (request) => (down ? Promise.reject(new Error('connection refused: the venue is down')) : service.dispatch(request));
  const hub: RelayWsHub = {
    checkUpgrade: (target, authorization) =>
      down ? { ok: false, status: 503, body: { code: 'INTERNAL_ERROR', message: 'the venue is down', retryable: true } } : service.relayWs.checkUpgrade(target, authorization),
    accept: (peer, wallet) => service.relayWs.accept(peer, wallet),
    connectionCount: () => service.relayWs.connectionCount(),
    pendingOutcomeCount: () => service.relayWs.pendingOutcomeCount(),
    walletStats: (wallet) => service.relayWs.walletStats(wallet),
    dropAll: () => service.relayWs.dropAll(),
    closeAll: (code, reason) => service.relayWs.closeAll(code, reason),
    stop: () => service.relayWs.stop(),
  };
  let started = false;
  let stopped = false;
  return {
    get service() {
      return service;
    },
    url: IN_PROCESS_VENUE_URL,
    transport: createInProcessHttpTransport({ dispatch, clock, origin, latency, pending }),
    createSocket: inProcessSocketFactory({ hub, clock, origin: origin.replace(/^http/, 'ws'), delay: latency.relay, pending }),
    start() {
      if (started) return;
      started = true;
      service.start();
      if (params.faults !== undefined && params.faults.length > 0) service.faults.schedule(params.faults);
    },
    stop() {
      stopped = true;
      service.stop();
    },
    restart({ downMs }) {
      down = true;
      service.relayWs.dropAll();
      service.stop();
      return new Promise<void>((resolve) => {
        clock.scheduler.schedule(() => {
          down = false;
          if (!stopped) {
            service = createService();
            service.start();
          }
          resolve();
        }, downMs);
      });
    },
  };
}
