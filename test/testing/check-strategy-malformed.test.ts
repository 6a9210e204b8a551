/**
 * `checkStrategy` treats a strategy that emits `undefined`, `null`, a number or a malformed intent as
 * a live run does (src/runtime/strategy-host.ts): the check rejects with STRATEGY_INTENT_INVALID naming
 * the problem, or with `strict: false` records it in `invalid`; never an unhandled error after it
 * returned.
 */
import { Observable, of, timer, map } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineStrategy, isBaseError, z, type Intent } from 'clobbot';
import { checkStrategy } from 'clobbot/testing';
import { book, monUsdc } from '../strategies/fixtures.ts';

const start = { at: 0, ...book('0.0349', '0.0351') };

/** A strategy that emits `value` 10 ms after it starts (the harness waits for the first book). */
function emitting(value: unknown) {
  return defineStrategy({ name: 'emits-garbage', params: z.object({}), create: (ctx) => timer(10, ctx.clock.scheduler).pipe(map(() => value as Intent)) as Observable<Intent> });
}

let unhandled: unknown[];
const onUnhandled = (error: unknown) => unhandled.push(error);
beforeEach(() => {
  unhandled = [];
  process.on('uncaughtException', onUnhandled);
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('uncaughtException', onUnhandled);
  process.off('unhandledRejection', onUnhandled);
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('checkStrategy and malformed intents', () => {
  const cases: [string, unknown, RegExp][] = [
    ['undefined', undefined, /emitted an invalid intent at 10: expected an intent object, got undefined/],
    ['null', null, /emitted an invalid intent at 10: expected an intent object, got null/],
    ['a number', 42, /emitted an invalid intent at 10: expected an intent object, got number/],
    ['an object without a type', { purpose: 'x' }, /emitted an invalid intent at 10: type must be one of /],
    ['a PlaceAndCancel without orders', { type: 'PlaceAndCancel', purpose: 'x', market: monUsdc.address, cancelSlots: [] }, /emitted an invalid PlaceAndCancel intent at 10: cancelSlots and orders must be arrays/],
  ];
  for (const [what, value, message] of cases) {
    it(`${what}: rejects with STRATEGY_INTENT_INVALID, nothing unhandled`, async () => {
      const error = await checkStrategy(emitting(value), { params: {}, markets: [{ spec: monUsdc, books: [start] }], until: 1_000 }).then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
      await settle();
      expect(unhandled).toEqual([]);
      expect(isBaseError(error) && error.code).toBe('STRATEGY_INTENT_INVALID');
      expect((error as Error).message).toMatch(message);
    });
  }

  it('with strict: false an undefined intent is recorded as invalid, never sent, and the check resolves', async () => {
    const result = await checkStrategy(emitting(undefined), { params: {}, markets: [{ spec: monUsdc, books: [start] }], until: 1_000, strict: false });
    await settle();
    expect(unhandled).toEqual([]);
    expect(result.invalid).toEqual([{ at: 10, intent: undefined, problems: ['expected an intent object, got undefined'] }]);
    expect(result.reverted).toEqual([]);
    expect(result.refused).toEqual([]);
  });

  it('a strategy that emits undefined and then completes is still refused', async () => {
    const definition = defineStrategy({ name: 'once', params: z.object({}), create: () => of(undefined as unknown as Intent) });
    await expect(checkStrategy(definition, { params: {}, markets: [{ spec: monUsdc, books: [start] }], until: 1_000 })).rejects.toMatchObject({ code: 'STRATEGY_INTENT_INVALID' });
    await settle();
    expect(unhandled).toEqual([]);
  });
});
