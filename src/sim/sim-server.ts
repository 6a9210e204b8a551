/**
 * The simulated venue on the network: the sim service (sim-service.ts: the venue model, its
 * background order flow, every HTTP route and the relay WebSocket's rules) behind one HTTP server on
 * one port, with the relay WebSocket on `ws`. This is what `clobbot sim` runs and what integration
 * tests of the network face start.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import { createHttpServer, type HttpServer, type ListeningAddress } from './http-server.ts';
import { createRelayWs } from './relay-ws.ts';
import type { RelayWsHub } from './relay-ws-hub.ts';
import { createSimService, type CreateSimServiceParameters } from './sim-service.ts';
import type { FaultModel } from './fault-model.ts';
import type { RawSimRequest, SimAnswer, SimDispatch } from './route-dispatch.ts';

export type CreateSimServerParameters = CreateSimServiceParameters & {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called with every HTTP answer (an access log; `clobbot chaos` counts rate limits with it). */
  readonly onAnswer?: (request: Pick<RawSimRequest, 'method' | 'target' | 'ip'>, answer: SimAnswer) => void;
};

export interface StartParameters {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

export interface SimServer {
  /** The venue model behind the server (tests step or stop its blocks). */
  readonly venue: SimVenueModel;
  /** The venue's faults (the same as `/sim/faults`). */
  readonly faults: FaultModel;
  /** The relay WebSocket (connection and pending-outcome counts). */
  readonly relayWs: Pick<RelayWsHub, 'connectionCount' | 'pendingOutcomeCount' | 'walletStats'>;
  /** Starts the venue (blocks, background flow), then listens. Resolves with the base URL. */
  start(parameters: StartParameters): Promise<ListeningAddress>;
  /**
   * A restart of the venue's servers with its chain kept: every relay WebSocket dropped (1006), the
   * port closed (connections refused) for `downMs`, then listening again on the same port. Blocks
   * and the background flow go on meanwhile, as a chain does while its API restarts.
   */
  restart(parameters: { readonly downMs: number }): Promise<void>;
  /** Closes every WebSocket (1001) and connection, stops the flow and the blocks. Idempotent. */
  stop(): Promise<void>;
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
  const { config, clock, logger } = parameters;
  const service = createSimService(parameters);
  const relayWs = createRelayWs({ hub: service.relayWs, clock, logger: logger.child({ component: 'relay-ws' }) }, { maxPayloadBytes: config.http.maxBodyBytes });
  const onAnswer = parameters.onAnswer;
  const dispatch: SimDispatch =
    onAnswer === undefined
      ? service.dispatch
      : async (request) => {
          const answer = await service.dispatch(request);
          onAnswer(request, answer);
          return answer;
        };
  const newHttp = (): HttpServer => createHttpServer({ dispatch, upgrade: relayWs.upgrade, logger: logger.child({ component: 'http' }), clock });
  let http = newHttp();
  let listening: { readonly port: number; readonly host: string } | undefined;

  let stopping: Promise<void> | undefined;
  return {
    venue: service.venue,
    faults: service.faults,
    relayWs: service.relayWs,
    async start({ port, host = '127.0.0.1' }) {
      service.start();
      const address = await http.listen(port, host);
      listening = { port: address.port, host };
      return address;
    },
    async restart({ downMs }) {
      if (listening === undefined || stopping !== undefined) throw new Error('restart: the server is not running');
      const { port, host } = listening;
      service.relayWs.dropAll();
      await http.close();
      await new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), downMs));
      if (stopping !== undefined) return;
      http = newHttp();
      await http.listen(port, host);
    },
    stop() {
      stopping ??= (async () => {
        await relayWs.close();
        await http.close();
        service.stop();
      })();
      return stopping;
    },
  };
}
