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
import { configErrorMap, describeKind } from './config-error-map.ts';
import { faultActionSchema } from './fault-config.ts';
import { bareNumberDuration, durationMs } from './fields.ts';

/** Longest offset of a fault script entry: 30 days (as fault-config.ts). */
const MAX_OFFSET_MS = 30 * 86_400_000;

/** zod: a time after a virtual run's start, a duration with its unit (`12.4s`, `2m`, `250ms`) or `0`. */
const runOffsetMs = z.unknown().transform((value, ctx): number => {
  if (value === 0) return 0;
  const parsed = durationMs.safeParse(value);
  if (parsed.success && parsed.data <= MAX_OFFSET_MS) return parsed.data;
  ctx.addIssue({
    code: 'custom',
    message: typeof value === 'number' ? bareNumberDuration(value) : `expected a time after the start up to 30 days with a unit, e.g. 12.4s or 2m, got ${describeKind(value)}`,
  });
  return z.NEVER;
});

/** A one-way delay, drawn per message. */
export type LatencyConfig =
  | { readonly kind: 'constant'; readonly ms: number }
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly kind: 'lognormal'; readonly medianMs: number; readonly sigma: number; readonly maxMs: number };

const DELAY_UNITS_MS = { ms: 1, s: 1000 } as const;
/** The longest one-way delay a latency may give: a minute. */
const MAX_DELAY_MS = 60_000;

/**
 * zod: a non-negative delay of at most a minute, as milliseconds, written with its unit (`250ms`,
 * `1.5s`); `0` alone is no delay. Any other bare number is refused (`bareNumberDuration`).
 */
export const delayMs = z.unknown().transform((value, ctx): number => {
  let ms: number | undefined;
  if (value === 0) ms = 0;
  else if (typeof value === 'number') {
    ctx.addIssue({ code: 'custom', message: bareNumberDuration(value) });
    return z.NEVER;
  } else if (typeof value === 'string') {
    const match = /^([0-9]+(?:\.[0-9]+)?)\s*(ms|s)$/.exec(value.trim());
    if (match) ms = Number(match[1]) * DELAY_UNITS_MS[match[2] as keyof typeof DELAY_UNITS_MS];
  }
  if (ms === undefined || ms < 0 || ms > MAX_DELAY_MS) {
    ctx.addIssue({ code: 'custom', message: `expected a delay from 0 to 60s with a unit, ms or s (e.g. 20ms, 1.5s), got ${describeKind(value)}` });
    return z.NEVER;
  }
  return ms;
});

const constantLatency = delayMs.transform((ms): LatencyConfig => ({ kind: 'constant', ms }));
const uniformLatency = z
  .strictObject({ uniform: z.tuple([delayMs, delayMs]) })
  .refine(({ uniform: [min, max] }) => min <= max, { error: 'uniform: [min, max] needs min <= max' })
  .transform(({ uniform: [minMs, maxMs] }): LatencyConfig => ({ kind: 'uniform', minMs, maxMs }));
const lognormalLatency = z
  .strictObject({ lognormal: z.strictObject({ median: delayMs, sigma: z.number().min(0).max(3), max: delayMs.optional() }) })
  .transform(({ lognormal }): LatencyConfig => ({ kind: 'lognormal', medianMs: lognormal.median, sigma: lognormal.sigma, maxMs: lognormal.max ?? MAX_DELAY_MS }));

/**
 * zod: a LatencyConfig in any of its written forms, told apart by shape (a map with `lognormal`, another
 * map, or a delay), so a problem is reported where it is (`virtual.latency.relay: expected a duration
 * with a unit, 20s or 20ms`), never as "does not match any of the allowed forms".
 */
export const latencySchema = z.unknown().transform((value, ctx): LatencyConfig => {
  const map = typeof value === 'object' && value !== null && !Array.isArray(value);
  const schema = !map ? constantLatency : 'lognormal' in value ? lognormalLatency : uniformLatency;
  const parsed = schema.safeParse(value, { error: configErrorMap });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
  return z.NEVER;
});

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
  /**
   * Faults of the in-process venue at times after the run's start: `[{ at: 12.4s, fault: { action: drop-connections } }]`.
   * The fault script of POST /sim/faults/script (fault-config.ts) with each time a duration with its unit, as
   * everywhere in a run file; `0` alone is the start.
   */
  faults: z.array(z.strictObject({ at: runOffsetMs, fault: faultActionSchema })).max(10_000).default([]),
});

export type VirtualConfig = z.output<typeof virtualSchema>;
