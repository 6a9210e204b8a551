/**
 * The virtual clock's scheduler against a plain model (a list sorted by due time, then schedule
 * order), and the two things RxJS's VirtualTimeScheduler got wrong for long runs: a periodic action
 * stays one action (no nesting), and rescheduling moves an action instead of adding one.
 */
import fc from 'fast-check';
import { debounceTime, interval, Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VirtualScheduler } from '../../src/core/virtual-scheduler.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type Op = { readonly kind: 'schedule'; readonly delay: number } | { readonly kind: 'cancel'; readonly pick: number } | { readonly kind: 'advance'; readonly by: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('schedule' as const), delay: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 40 }) }),
);

describe('VirtualScheduler', () => {
  it('runs what is due in due-time order, ties in schedule order, each at its due time (model check)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const scheduler = new VirtualScheduler(1_000);
        const ran: [number, number][] = [];
        const model: { id: number; due: number }[] = [];
        const expected: [number, number][] = [];
        const handles = new Map<number, { unsubscribe(): void }>();
        let id = 0;
        let now = 1_000;
        for (const step of ops) {
          if (step.kind === 'schedule') {
            const mine = id++;
            handles.set(mine, scheduler.schedule(() => ran.push([mine, scheduler.now()]), step.delay));
            model.push({ id: mine, due: now + step.delay });
          } else if (step.kind === 'cancel' && model.length > 0) {
            const [victim] = model.splice(step.pick % model.length, 1);
            handles.get(victim!.id)!.unsubscribe();
          } else if (step.kind === 'advance') {
            now += step.by;
            // Stable sort: equal due times keep schedule order.
            const due = model.filter((entry) => entry.due <= now).sort((a, b) => a.due - b.due);
            for (const entry of due) expected.push([entry.id, entry.due]);
            model.splice(0, model.length, ...model.filter((entry) => entry.due > now));
            scheduler.runUntil(now);
            expect(scheduler.now()).toBe(now);
          }
          expect(scheduler.nextDueTime()).toBe(model.length === 0 ? undefined : Math.min(...model.map((entry) => entry.due)));
        }
        expect(ran).toEqual(expected);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('keeps a periodic action one action: an hour of 400 ms blocks unsubscribes without overflowing the stack', () => {
    const scheduler = new VirtualScheduler(0);
    let blocks = 0;
    const subscription = interval(400, scheduler).subscribe(() => blocks++);
    scheduler.runUntil(3_600_000 * 4);
    expect(blocks).toBe(36_000);
    expect(() => subscription.unsubscribe()).not.toThrow();
    expect(scheduler.nextDueTime()).toBeUndefined();
  });

  it('moves a rescheduled action rather than running it twice (debounce)', () => {
    const scheduler = new VirtualScheduler(0);
    const input = new Subject<number>();
    const out: [number, number][] = [];
    input.pipe(debounceTime(100, scheduler)).subscribe((value) => out.push([value, scheduler.now()]));
    input.next(1);
    scheduler.runUntil(50);
    input.next(2);
    scheduler.runUntil(149);
    expect(out).toEqual([]);
    scheduler.runUntil(1_000);
    expect(out).toEqual([[2, 150]]);
  });

  it('throws what a work throws, drops that action and keeps the others', () => {
    const scheduler = new VirtualScheduler(0);
    const seen: number[] = [];
    scheduler.schedule(() => {
      throw new Error('boom');
    }, 10);
    timer(20, scheduler).subscribe(() => seen.push(scheduler.now()));
    expect(() => scheduler.runUntil(100)).toThrow('boom');
    expect(scheduler.now()).toBe(10);
    scheduler.runUntil(100);
    expect(seen).toEqual([20]);
  });
});
