/**
 * The local venue's faults as data (docs/configuration.md "Faults"): the standing settings (rates and
 * delays, the sim config's `faults` and `GET/POST /sim/faults`), the one-shot fault actions
 * (`POST /sim/faults/actions`) and a fault script of actions at clock times (a run file's
 * `virtual.faults`, `POST /sim/faults/script`). The venue applies them in src/sim/fault-model.ts.
 */
import { z } from 'zod';
import { describeKind } from './config-error-map.ts';
import { durationMs, intInRange } from './fields.ts';

const rate = z.number().min(0).max(1);
const delay = intInRange(0, 600_000);

/** Each standing setting, without its default (a patch names only what it changes). */
const settingFields = {
  /** Drop every relay WebSocket this often (ms); 0: never. */
  dropWebSocketsEveryMs: intInRange(0, 86_400_000),
  /** Extra delay before each terminal outcome is sent (ms). */
  outcomeDelayMs: delay,
  /** Fraction of outcomes never sent. */
  withholdOutcomesRate: rate,
  /** Fraction of outcomes sent twice: the identical frame again 1 ms after the first (DUPLICATE_OUTCOME_GAP_MS). */
  duplicateOutcomesRate: rate,
  /** Fraction of outcomes held back until the connection's next outcome is sent, then sent right behind it (at most REORDER_MAX_HOLD_MS). */
  reorderOutcomesRate: rate,
  /** Fraction of relay requests answered UNKNOWN (BROADCAST_RESULT_UNKNOWN) after broadcasting. */
  unknownResponseRate: rate,
  /** Fraction of relay requests answered REJECTED INTERNAL_ERROR without being broadcast. */
  rejectResponseRate: rate,
  /** Extra delay of the answer to every relay submission, REST or WebSocket (ms); the request is handled at once. */
  relayDelayMs: delay,
  /**
   * Fraction of relay submissions rate limited by the HTTP edge in front of the relay, never reaching
   * the venue: `POST /relay` gets HTTP 429 -1003 with `Retry-After`, a WebSocket request REJECTED
   * RATE_LIMITED with `retryAfterMs` (docs/protocol.md "Faults").
   */
  relayRateLimitRate: rate,
  /** The `Retry-After` (seconds) of those 429s; `retryAfterMs` is this × 1000 on the WebSocket. */
  relayRetryAfterSec: intInRange(1, 3600),
  /**
   * Fraction of relay submissions failed by the HTTP edge, never reaching the venue: `POST /relay`
   * gets HTTP 500, 502 or 503 (one in three each) with Binance's body, a WebSocket request REJECTED
   * INTERNAL_ERROR.
   */
  relayServerErrorRate: rate,
  /** Fraction of market-data requests answered with HTTP 5xx. */
  marketDataErrorRate: rate,
  /** Fraction of market-data requests answered HTTP 429 -1003 with `Retry-After`. */
  marketDataRateLimitRate: rate,
  /** The `Retry-After` (seconds) of those 429s. */
  marketDataRetryAfterSec: intInRange(1, 3600),
  /** Extra delay of every market-data response (ms). */
  marketDataDelayMs: delay,
  /** Every order event shows in order-events answers only this long after its block (ms): a lagging indexer. */
  orderEventsDelayMs: delay,
} as const;

/** The settings with every fault off. */
export const FAULTS_OFF = Object.freeze({
  dropWebSocketsEveryMs: 0,
  outcomeDelayMs: 0,
  withholdOutcomesRate: 0,
  duplicateOutcomesRate: 0,
  reorderOutcomesRate: 0,
  unknownResponseRate: 0,
  rejectResponseRate: 0,
  relayDelayMs: 0,
  relayRateLimitRate: 0,
  relayRetryAfterSec: 1,
  relayServerErrorRate: 0,
  marketDataErrorRate: 0,
  marketDataRateLimitRate: 0,
  marketDataRetryAfterSec: 1,
  marketDataDelayMs: 0,
  orderEventsDelayMs: 0,
} as const satisfies Record<keyof typeof settingFields, number>);

/** A change of some settings (strict: an unknown key is an error at that key). */
export const faultSettingsPatchSchema = z.strictObject(settingFields).partial();

/** The standing settings, every key left out at its `FAULTS_OFF` value. */
export const faultSettingsSchema = faultSettingsPatchSchema.transform((patch): SimFaults => ({ ...FAULTS_OFF, ...patch }));

/**
 * The standing fault settings of the venue.
 *
 * @useDeclaredType
 */
export type SimFaults = { -readonly [K in keyof typeof FAULTS_OFF]: number };
export type SimFaultsPatch = z.output<typeof faultSettingsPatchSchema>;

/** How many of the next requests (or outcomes) a one-shot action touches. */
const count = intInRange(1, 1_000_000).default(1);

/**
 * zod: one fault action, applied at once. Counted actions touch the next `count` relay submissions,
 * outcomes, market-data requests or order events, in arrival order, before the standing rates are
 * drawn. The outcome actions (withhold, delay, duplicate, reorder) share one queue: each outcome
 * takes at most one of them, in the order they were applied. So do the refusals of a submission
 * before it reaches the venue (answer-rejected, rate-limit-relay, fail-relay).
 */
export const faultActionSchema = z.discriminatedUnion('action', [
  /** Cut every relay WebSocket without a close frame (the client sees 1006). */
  z.strictObject({ action: z.literal('drop-connections') }),
  /** Close every relay WebSocket with 4008 PENDING_OUTCOME_LIMIT, as the relay does at 64 pending outcomes. */
  z.strictObject({ action: z.literal('close-pending-outcome-limit') }),
  /** Every relay JWT issued so far is refused as expired (HTTP 401 AUTHENTICATION_FAILED "JWT expired"). */
  z.strictObject({ action: z.literal('expire-tokens') }),
  z.strictObject({ action: z.literal('withhold-outcomes'), count }),
  z.strictObject({ action: z.literal('delay-outcomes'), count, delayMs: delay }),
  /** Outcomes sent twice: the identical frame again 1 ms after the first. */
  z.strictObject({ action: z.literal('duplicate-outcomes'), count }),
  /** Outcomes held back (still pending) until the connection's next outcome is sent, then sent right behind it; at most 1 s. */
  z.strictObject({ action: z.literal('reorder-outcomes'), count }),
  /**
   * Order events shown only `delayMs` after their block (timestamps unchanged): the next `count`
   * that order-events readers come upon, of blocks at or after the moment the action was applied.
   */
  z.strictObject({ action: z.literal('delay-order-events'), count, delayMs: delay }),
  /** BROADCAST submissions answered UNKNOWN BROADCAST_RESULT_UNKNOWN (still broadcast, not tracked). */
  z.strictObject({ action: z.literal('answer-unknown'), count }),
  /** Submissions answered REJECTED without being broadcast: INTERNAL_ERROR, or RATE_LIMITED with `retryAfterMs`. */
  z.strictObject({
    action: z.literal('answer-rejected'),
    count,
    code: z.enum(['INTERNAL_ERROR', 'RATE_LIMITED']).default('INTERNAL_ERROR'),
    retryAfterMs: intInRange(0, 600_000).default(1000),
  }),
  /**
   * Submissions rate limited by the HTTP edge in front of the relay, never reaching the venue:
   * `POST /relay` HTTP 429 -1003 with `Retry-After: retryAfterSec`, a WebSocket request REJECTED
   * RATE_LIMITED with `retryAfterMs` = retryAfterSec × 1000.
   */
  z.strictObject({ action: z.literal('rate-limit-relay'), count, retryAfterSec: intInRange(1, 3600).default(1) }),
  /**
   * Submissions failed by the HTTP edge, never reaching the venue: `POST /relay` HTTP `status` with
   * Binance's body (-1000 for 500, -1001 for 502 and 503), a WebSocket request REJECTED INTERNAL_ERROR.
   */
  z.strictObject({ action: z.literal('fail-relay'), count, status: z.union([z.literal(500), z.literal(502), z.literal(503)]).default(503) }),
  z.strictObject({ action: z.literal('fail-market-data'), count, status: z.union([z.literal(500), z.literal(503)]).default(503) }),
  z.strictObject({ action: z.literal('rate-limit-market-data'), count, retryAfterSec: intInRange(1, 3600).default(1) }),
  /** Changes some standing settings (the same as `POST /sim/faults`). */
  z.strictObject({ action: z.literal('set'), settings: faultSettingsPatchSchema }),
]);

export type FaultAction = z.output<typeof faultActionSchema>;
/**
 * A fault action as written (counts and codes may be left at their defaults).
 *
 * @useDeclaredType
 */
export type FaultActionInput = z.input<typeof faultActionSchema>;

/** Longest offset of a script entry: 30 days. */
const MAX_OFFSET_MS = 30 * 86_400_000;

/** zod: a time after the script's start: whole milliseconds (`12400`), or a duration (`12.4s`, `2m`). */
const offsetMs = z.unknown().transform((value, ctx): number => {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_OFFSET_MS) return value;
  const parsed = typeof value === 'string' ? durationMs.safeParse(value) : undefined;
  if (parsed?.success === true && parsed.data <= MAX_OFFSET_MS) return parsed.data;
  ctx.addIssue({ code: 'custom', message: `expected a time after the start up to 30 days: whole milliseconds, or a duration such as 12.4s or 2m, got ${describeKind(value)}` });
  return z.NEVER;
});

/** zod: a fault script, entries `{at, fault}` in any order (ties run in the order written). */
export const faultScriptSchema = z.array(z.strictObject({ at: offsetMs, fault: faultActionSchema })).max(10_000);

export type FaultScript = z.output<typeof faultScriptSchema>;
/** A fault script as written (times as text or ms, actions with their defaults left out). */
export type FaultScriptInput = z.input<typeof faultScriptSchema>;
export type FaultScriptEntry = FaultScript[number];
