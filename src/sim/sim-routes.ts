/**
 * Dev-only endpoints of the simulated venue under `/sim/` (ours; never present on another network):
 *
 * - `GET /sim/info`: chain id, block time, contracts, markets with every parameter, tokens
 *   (bigints as canonical decimal strings).
 * - `POST /sim/fund {owner, token, amount}`: creates the owner's account if needed and credits it
 *   `amount` raw token units (a canonical decimal string; 0 only creates the account). `owner` and a
 *   token address may be in any case; `token` may also be a token symbol. Answers `{accountId}`.
 * - `GET /sim/faults` and `POST /sim/faults {…}`: read and change the standing fault settings at
 *   runtime. The body holds any subset of the config's `faults` keys; the merged settings are
 *   validated with the config's own schema (unknown keys and out-of-range values refused) and
 *   answered whole.
 * - `POST /sim/faults/actions {action, …}`: applies one fault action at once (fault-config.ts);
 *   answers `{action, pending}`, the action with its defaults and the one-shot faults left.
 *   `GET /sim/faults/actions` answers `{pending}`.
 * - `POST /sim/faults/script [{at, fault}, …]`: schedules a fault script on the venue's clock, `at`
 *   counted from now; answers `{scheduled, startMs}`.
 *
 * Errors are relay-style bodies `{code, message, retryable}` with HTTP 400.
 */
import { z } from 'zod';
import { isBaseError } from '../core/base-error.ts';
import { faultActionSchema, faultScriptSchema, faultSettingsSchema } from '../config/fault-config.ts';
import type { Clock } from '../core/clock.ts';
import { anyCaseAddress, uintText, type Address } from '../protocol/encoding.ts';
import type { SimInfo, SimVenue } from '../venue/sim-venue.ts';
import type { FaultModel } from './fault-model.ts';
import type { SimResponse, SimRoute } from './http-types.ts';
import { parseStrictJsonBody, relayError, relayFailureBody, schemaFailure } from './relay-auth-routes.ts';

export const fundRequestSchema = z.strictObject({
  owner: anyCaseAddress,
  /** A token address (any case) or symbol. */
  token: z.string().min(1).max(64),
  /** Raw token units. */
  amount: uintText(256),
});

/** `value` with every bigint replaced by its decimal string, for JSON. */
export function bigintsToStrings(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(bigintsToStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bigintsToStrings(item)]));
  }
  return value;
}

function resolveToken(info: SimInfo, token: string): Address | undefined {
  if (/^0x[0-9a-fA-F]{40}$/.test(token)) {
    const address = token.toLowerCase();
    return info.tokens.find((candidate) => candidate.address === address)?.address;
  }
  return info.tokens.find((candidate) => candidate.symbol === token)?.address;
}

/**
 * The `/sim/` routes.
 *
 * @example const routes = simRoutes({ venue, faults, clock });
 */
export function simRoutes(context: { readonly venue: SimVenue; readonly faults: FaultModel; readonly clock: Clock }): SimRoute[] {
  const { venue, faults, clock } = context;
  const fund = (body: string): SimResponse => {
    const parsed = parseStrictJsonBody(body, fundRequestSchema);
    if (!parsed.ok) return parsed.response;
    const { owner, token, amount } = parsed.value;
    const address = resolveToken(venue.info(), token);
    if (address === undefined) return relayError('INVALID_REQUEST', `$.token: unknown token ${JSON.stringify(token)}`);
    let accountId: bigint;
    try {
      accountId = venue.fund(owner, address, BigInt(amount));
    } catch (error) {
      // The venue refuses amounts outside its range as a broken precondition, not as bad input.
      if (isBaseError(error, 'UNITS_OUT_OF_RANGE')) return relayError('INVALID_REQUEST', `$.amount: ${error.message}`);
      throw error;
    }
    return { status: 200, body: { accountId: accountId.toString() } };
  };
  const setFaults = (body: string): SimResponse => {
    const patch = parseStrictJsonBody(body, z.unknown());
    if (!patch.ok) return patch.response;
    const value = patch.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return relayError('INVALID_REQUEST', '$: expected an object');
    // Merged into a prototype-less object, so a `__proto__` key stays a key (and is refused as unknown).
    const merged: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, faults.get());
    for (const key of Object.keys(value)) merged[key] = (value as Record<string, unknown>)[key];
    const parsed = faultSettingsSchema.safeParse(merged);
    if (!parsed.success) return schemaFailure(parsed.error);
    faults.set(parsed.data);
    return { status: 200, body: parsed.data };
  };
  const applyAction = (body: string): SimResponse => {
    const parsed = parseStrictJsonBody(body, faultActionSchema);
    if (!parsed.ok) return parsed.response;
    faults.apply(parsed.value);
    return { status: 200, body: { action: parsed.value, pending: faults.pending() } };
  };
  const scheduleScript = (body: string): SimResponse => {
    const parsed = parseStrictJsonBody(body, faultScriptSchema);
    if (!parsed.ok) return parsed.response;
    const startMs = clock.now();
    faults.schedule(parsed.value, { startMs });
    return { status: 200, body: { scheduled: parsed.value.length, startMs } };
  };
  return [
    { method: 'GET', pattern: '/sim/info', handler: () => ({ status: 200, body: bigintsToStrings(venue.info()) }) },
    { method: 'POST', pattern: '/sim/fund', handler: (request) => fund(request.body), failureBody: relayFailureBody },
    { method: 'GET', pattern: '/sim/faults', handler: () => ({ status: 200, body: faults.get() }) },
    { method: 'POST', pattern: '/sim/faults', handler: (request) => setFaults(request.body), failureBody: relayFailureBody },
    { method: 'GET', pattern: '/sim/faults/actions', handler: () => ({ status: 200, body: { pending: faults.pending() } }) },
    { method: 'POST', pattern: '/sim/faults/actions', handler: (request) => applyAction(request.body), failureBody: relayFailureBody },
    { method: 'POST', pattern: '/sim/faults/script', handler: (request) => scheduleScript(request.body), failureBody: relayFailureBody },
  ];
}
