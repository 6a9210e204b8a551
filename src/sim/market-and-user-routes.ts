/**
 * Every REST route of the simulated venue except the relay's and `/sim`'s: market data, user data,
 * token metadata and quotes, configured from the sim config. The server composition adds the relay
 * and dev routes beside these.
 */
import type { Clock } from '../core/clock.ts';
import type { RandomSource } from '../core/random.ts';
import type { SimConfig } from '../config/sim-config.ts';
import type { SimVenue } from '../venue/sim-venue.ts';
import type { SimRoute } from './http-types.ts';
import { JwtSecret } from './jwt.ts';
import { createFaultModel, type MarketDataFaultReader, type OrderEventFaultReader } from './fault-model.ts';
import { marketDataRoutes } from './market-data-routes.ts';
import { tokenQuoteRoutes } from './token-quote-routes.ts';
import { userDataRoutes } from './user-data-routes.ts';
import { createWeightLimiter } from './weight-limiter.ts';

export interface MarketAndUserRoutesOptions {
  readonly config: Pick<SimConfig, 'marketData' | 'userData' | 'auth' | 'faults'>;
  readonly clock: Clock;
  /** Draws the market-data fault rates when `faults` is not given. */
  readonly random: RandomSource;
  /** Signs quote tokens. Default: a fresh random key. */
  readonly secret?: JwtSecret;
  /** The venue's fault model (market-data and order-event faults are asked of it on every request). Default: one of `config.faults` alone. */
  readonly faults?: MarketDataFaultReader & OrderEventFaultReader;
}

/**
 * @example
 * const routes = [...marketAndUserRoutes(venue, { config, clock, random: seededRandom(config.seed) }), ...relayRoutes];
 * const server = createHttpServer({ routes, maxBodyBytes: config.http.maxBodyBytes, logger, clock });
 */
export function marketAndUserRoutes(venue: SimVenue, options: MarketAndUserRoutesOptions): SimRoute[] {
  const { config, clock } = options;
  const faults = options.faults ?? createFaultModel({ clock, random: options.random, settings: config.faults });
  return [
    ...marketDataRoutes(venue, {
      limiter: createWeightLimiter(clock, { weightPerMinute: config.marketData.weightPerMinute }),
      faults,
    }),
    ...userDataRoutes(venue, { clock, orderEventsCacheMs: config.userData.orderEventsCacheMs, faults }),
    ...tokenQuoteRoutes(venue, {
      clock,
      secret: options.secret ?? JwtSecret.generate(),
      quoteTokenLifetimeSec: config.auth.quoteTokenLifetimeSec,
    }),
  ];
}
