/**
 * The run file's `virtual` section: what a run on virtual time (`clobbot run --virtual`) needs that a
 * live run does not — where the virtual clock starts, and the latency of the in-process connection
 * between the bot and the venue (docs/configuration.md, "Virtual runs").
 *
 * `faults` is a fault script (fault-config.ts): actions at times after the run's start, each applied by
 * the venue's fault model exactly then on the virtual clock.
 *
 * A latency is one-way, drawn per message from a seeded source: a constant (`20ms`, `0`), a uniform
 * range (`{ uniform: [5ms, 40ms] }`) or a log-normal (`{ lognormal: { median: 20ms, sigma: 0.5, max: 1s } }`:
 * network delays are skewed to the right; `max` bounds the tail).
 */
import { z } from 'zod';
import { describeKind } from './config-error-map.ts';
import { faultScriptSchema } from './fault-config.ts';

/** A one-way delay, drawn per message. */
export type LatencyConfig =
  | { readonly kind: 'constant'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: 'lognormal'; readonly medianMs: number; readonly sigma: number; readonly maxMs: number };

const DELAY_UNITS_MS = { ms: 1, s: 1000 } as const;
/** The longest one-way delay a latency may give: a minute. */
const MAX_DELAY_MS = 60_000;

/** zod: a non-negative delay of at most a minute, as milliseconds (a number, or `250ms`, `1.5s`). */
export const delayMs = z.unknown().transform((value, ctx): number => {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) ms = value;
  else if (typeof value === 'string') {
    const match = /^([0-9]+(?:\.[0-9]+)?)\s*(ms|s)$/.exec(value.trim());
    if (match) ms = Number(match[1]) * DELAY_UNITS_MS[match[2] as keyof typeof DELAY_UNITS_MS];
  }
  if (ms === undefined || ms < 0 || ms > MAX_DELAY_MS) {
    ctx.addIssue({ code: 'custom', message: `expected a delay from 0 to 60s: milliseconds, or a number with ms or s (e.g. 20ms), got ${describeKind(value)}` });
    return z.NEVER;
  }
  return ms;
});

/** zod: a LatencyConfig in any of its written forms. */
export const latencySchema = z.union([
  delayMs.transform((ms): LatencyConfig => ({ kind: 'constant', ms })),
  z
    .strictObject({ uniform: z.tuple([delayMs, delayMs]) })
    .refine(({ uniform: [min, max] }) => min <= max, { error: 'uniform: [min, max] needs min <= max' })
    .transform(({ uniform: [minMs, maxMs] }): LatencyConfig => ({ kind: 'uniform', minMs, maxMs })),
  z
    .strictObject({ lognormal: z.strictObject({ median: delayMs, sigma: z.number().min(0).max(3), max: delayMs.optional() }) })
    .transform(({ lognormal }): LatencyConfig => ({ kind: 'lognormal', medianMs: lognormal.median, sigma: lognormal.sigma, maxMs: lognormal.max ?? MAX_DELAY_MS })),
]);

/** The default latencies of the in-process connection (ours: a bot near its RPC and API hosts). */
export const DEFAULT_VIRTUAL_LATENCY = {
  relay: { kind: 'constant', ms: 30 },
  marketData: { kind: 'constant', ms: 30 },
  userData: { kind: 'constant', ms: 50 },
} as const satisfies Record<string, LatencyConfig>;

/** Where the virtual clock starts by default: a fixed instant, so a virtual run never depends on the wall clock. */
export const DEFAULT_VIRTUAL_START_MS = Date.UTC(2026, 0, 1);

export const virtualSchema = z.strictObject({
  /** The virtual clock's start, an ISO 8601 instant. Default 2026-01-01T00:00:00Z. */
  start: z.iso
    .datetime({ offset: true, error: 'expected an ISO 8601 instant such as 2026-01-01T00:00:00Z' })
    .transform((text) => Date.parse(text))
    .default(DEFAULT_VIRTUAL_START_MS),
  latency: z
    .strictObject({
      /** Each relay message (REST request and answer, WebSocket frame, sign-in), one way. */
      relay: latencySchema.default(DEFAULT_VIRTUAL_LATENCY.relay),
      /** Each market-data request and answer (depth, trades, ticker, klines, exchange info), one way. */
      marketData: latencySchema.default(DEFAULT_VIRTUAL_LATENCY.marketData),
      /** Everything else (user data, JSON-RPC receipts, tokens, the sim's own routes), one way. */
      userData: latencySchema.default(DEFAULT_VIRTUAL_LATENCY.userData),
    })
    .prefault({}),
  /** Faults of the in-process venue at times after the run's start: `[{ at: 12.4s, fault: { action: drop-connections } }]`. */
  faults: faultScriptSchema.default([]),
});

export type VirtualConfig = z.output<typeof virtualSchema>;
