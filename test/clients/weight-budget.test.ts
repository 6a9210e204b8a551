import { describe, expect, it } from 'vitest';
import { createWeightBudget } from '../../src/clients/weight-budget.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { runOnClock, settle } from './support.ts';

describe('createWeightBudget', () => {
  it('lets requests through at once while they fit, then waits on the clock until the oldest weight leaves the window', async () => {
    const clock = new VirtualClock(0);
    const budget = createWeightBudget(clock, { weightPerMinute: 10 });
    const sent: [string, number][] = [];
    const send = (name: string, weight: number) => budget.acquire(weight).then(() => sent.push([name, clock.now()]));
    clock.advanceTo(1_000);
    const all = Promise.all([send('a', 4), send('b', 4), send('c', 4), send('d', 2)]);
    await runOnClock(clock, all);
    // a, b at 1000 (8 of 10); c waits for a to leave (61000); d is served after c, in order.
    expect(sent).toEqual([
      ['a', 1_000],
      ['b', 1_000],
      ['c', 61_000],
      ['d', 61_000],
    ]);
    // a and b left the window at 61000 together.
    expect(budget.used()).toBe(6);
  });

  it('never spends more than the budget in any 60 s window (so in no fixed server minute either)', async () => {
    const clock = new VirtualClock(30_000);
    const budget = createWeightBudget(clock, { weightPerMinute: 1200 });
    const times: number[] = [];
    const requests = Array.from({ length: 3000 }, () => budget.acquire(1).then(() => times.push(clock.now())));
    await runOnClock(clock, Promise.all(requests));
    for (let i = 0; i + 1200 < times.length; i += 1) expect(times[i + 1200]! - times[i]!).toBeGreaterThanOrEqual(60_000);
    // Per fixed minute as the server counts (Binance): at most 1200.
    const perMinute = new Map<number, number>();
    for (const time of times) perMinute.set(Math.floor(time / 60_000), (perMinute.get(Math.floor(time / 60_000)) ?? 0) + 1);
    for (const count of perMinute.values()) expect(count).toBeLessThanOrEqual(1200);
  });

  it('rises to the server count of X-MBX-USED-WEIGHT-1M but never lowers its own', async () => {
    const clock = new VirtualClock(0);
    const budget = createWeightBudget(clock, { weightPerMinute: 100 });
    await budget.acquire(10);
    budget.syncUsedWeight(5);
    expect(budget.used()).toBe(10);
    budget.syncUsedWeight(95);
    expect(budget.used()).toBe(95);
    let sent = false;
    void budget.acquire(10).then(() => (sent = true));
    await settle();
    expect(sent).toBe(false);
    clock.advanceBy(59_999);
    await settle();
    expect(sent).toBe(false);
    clock.advanceBy(1);
    await settle();
    expect(sent).toBe(true);
  });

  it('pauses the host until a Retry-After time', async () => {
    const clock = new VirtualClock(0);
    const budget = createWeightBudget(clock);
    budget.pauseUntil(5_000);
    expect(budget.pausedUntil()).toBe(5_000);
    const at = runOnClock(
      clock,
      budget.acquire(1).then(() => clock.now()),
    );
    expect(await at).toBe(5_000);
    expect(budget.pausedUntil()).toBeUndefined();
  });

  it('refuses a request heavier than the whole budget at once', async () => {
    const budget = createWeightBudget(new VirtualClock(0), { weightPerMinute: 10 });
    await expect(budget.acquire(11)).rejects.toMatchObject({ code: 'WEIGHT_BUDGET_EXCEEDED' });
  });

  it('drops an aborted waiter and serves the next one', async () => {
    const clock = new VirtualClock(0);
    const budget = createWeightBudget(clock, { weightPerMinute: 5 });
    await budget.acquire(5);
    const controller = new AbortController();
    const first = budget.acquire(5, { signal: controller.signal });
    const second = budget.acquire(1).then(() => clock.now());
    expect(budget.waiting()).toBe(2);
    controller.abort(new Error('stop'));
    await expect(first).rejects.toThrow('stop');
    expect(budget.waiting()).toBe(1);
    expect(await runOnClock(clock, second)).toBe(60_000);
  });
});
