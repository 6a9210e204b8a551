/** The kill switch: each trigger on a virtual clock, one emission, idempotent, never un-trips. */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createKillSwitch, installKillSwitchSignals, killSwitchParameters, type KillSwitchParameters, type KillSwitchTrip, type SignalSource } from '../../src/execution/kill-switch.ts';

const T0 = Date.UTC(2025, 0, 6);

function setup(params: KillSwitchParameters = {}) {
  const clock = new VirtualClock(T0);
  const killSwitch = createKillSwitch({ clock }, params);
  const trips: KillSwitchTrip[] = [];
  let completed = false;
  killSwitch.tripped$.subscribe({ next: (trip) => trips.push(trip), complete: () => (completed = true) });
  return { clock, killSwitch, trips, isComplete: () => completed };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('kill switch: command', () => {
  it('trips once with the reason, completes, and ignores later trips', () => {
    const { killSwitch, trips, isComplete, clock } = setup();
    expect(killSwitch.isTripped()).toBe(false);
    clock.advanceBy(1234);
    expect(killSwitch.trip('operator')).toBe(true);
    expect(killSwitch.trip('again')).toBe(false);
    expect(trips).toEqual([{ trigger: 'command', reason: 'operator', atMs: T0 + 1234, details: {} }]);
    expect(isComplete()).toBe(true);
    expect(killSwitch.tripped?.reason).toBe('operator');
    // A late subscriber still learns of it; starting again does not un-trip it.
    const late: KillSwitchTrip[] = [];
    killSwitch.tripped$.subscribe((trip) => late.push(trip));
    expect(late.map((trip) => trip.reason)).toEqual(['operator']);
    killSwitch.start();
    killSwitch.stop();
    expect(killSwitch.isTripped()).toBe(true);
  });
});

describe('kill switch: file', () => {
  it('trips at the first poll after the file appears', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clobbot-kill-'));
    dirs.push(dir);
    const file = join(dir, 'STOP');
    const { clock, killSwitch, trips } = setup({ file, filePollMs: 1000 });
    killSwitch.start();
    killSwitch.start(); // idempotent: one poll
    clock.advanceBy(2000);
    expect(trips).toEqual([]);
    clock.advanceBy(100);
    writeFileSync(file, '');
    clock.advanceBy(899); // T0 + 2999: no poll yet
    expect(trips).toEqual([]);
    clock.advanceBy(1); // poll at T0 + 3000
    expect(trips).toEqual([{ trigger: 'file', reason: `kill file ${file} exists`, atMs: T0 + 3000, details: { file } }]);
    clock.advanceBy(10_000);
    expect(trips).toHaveLength(1);
    expect(clock.nextDueTime()).toBeUndefined(); // the poll stopped
  });

  it('trips at start when the file is already there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clobbot-kill-'));
    dirs.push(dir);
    const file = join(dir, 'STOP');
    writeFileSync(file, '');
    const { killSwitch, trips } = setup({ file });
    killSwitch.start();
    expect(trips.map((trip) => trip.trigger)).toEqual(['file']);
  });

  it('stops polling on stop()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clobbot-kill-'));
    dirs.push(dir);
    const file = join(dir, 'STOP');
    const { clock, killSwitch, trips } = setup({ file, filePollMs: 1000 });
    killSwitch.start();
    killSwitch.stop();
    killSwitch.stop();
    writeFileSync(file, '');
    clock.advanceBy(5000);
    expect(trips).toEqual([]);
  });
});

describe('kill switch: signal', () => {
  it('trips on the installed signal and the handler can be removed', () => {
    const { killSwitch, trips } = setup();
    const emitter = new EventEmitter();
    const source = emitter as unknown as SignalSource;
    const uninstall = installKillSwitchSignals(killSwitch, { signals: ['SIGUSR2'], source });
    expect(emitter.listenerCount('SIGUSR2')).toBe(1);
    emitter.emit('SIGUSR2', 'SIGUSR2');
    emitter.emit('SIGUSR2', 'SIGUSR2');
    expect(trips).toEqual([{ trigger: 'signal', reason: 'signal SIGUSR2', atMs: T0, details: { signal: 'SIGUSR2' } }]);
    uninstall();
    expect(emitter.listenerCount('SIGUSR2')).toBe(0);
  });

  it('accepts process as its source', () => {
    const { killSwitch } = setup();
    const uninstall = installKillSwitchSignals(killSwitch, { signals: ['SIGUSR2'] });
    const listeners = process.listenerCount('SIGUSR2');
    expect(listeners).toBeGreaterThan(0);
    uninstall();
    expect(process.listenerCount('SIGUSR2')).toBe(listeners - 1);
  });
});

describe('kill switch: drawdown', () => {
  it('trips when net PnL falls maxDrawdown below its peak, not a unit before', () => {
    const pnl$ = new Subject<bigint>();
    const { killSwitch, trips } = setup({ maxDrawdown: 1000n, pnl$ });
    killSwitch.start();
    pnl$.next(0n);
    pnl$.next(500n); // peak
    pnl$.next(-499n); // 999 below the peak
    expect(trips).toEqual([]);
    expect(killSwitch.peakPnl).toBe(500n);
    pnl$.next(-500n); // 1000 below
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ trigger: 'drawdown', details: { peak: '500', pnl: '-500', maxDrawdown: '1000' } });
    pnl$.next(-5000n);
    expect(trips).toHaveLength(1);
    expect(pnl$.observed).toBe(false); // unsubscribed once tripped
  });

  it('measures from the first value seen, so a run that starts losing trips too', () => {
    const { killSwitch, trips } = setup({ maxDrawdown: 100n });
    killSwitch.observePnl(-50n);
    killSwitch.observePnl(-149n);
    expect(trips).toEqual([]);
    killSwitch.observePnl(-150n);
    expect(trips.map((trip) => trip.trigger)).toEqual(['drawdown']);
  });

  it('reads maxDrawdown from the run file in raw quote units', () => {
    expect(killSwitchParameters({ maxDrawdown: '250.5', maxErrorRate: 0.5, file: '/tmp/stop' }, 6)).toEqual({
      maxDrawdown: 250_500_000n,
      maxErrorRate: 0.5,
      file: '/tmp/stop',
    });
    expect(killSwitchParameters(undefined, 6)).toEqual({});
  });
});

describe('kill switch: error rate', () => {
  it('waits for the minimum sample, then trips at maxErrorRate', () => {
    const { killSwitch, trips } = setup({ maxErrorRate: 0.5, minSample: 10, errorWindowMs: 60_000 });
    for (let i = 0; i < 9; i++) {
      killSwitch.recordSubmission();
      killSwitch.recordFailure();
    }
    expect(trips).toEqual([]); // 9 of 9 failed, but only 9 submissions
    killSwitch.recordSubmission();
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ trigger: 'error-rate', details: { failures: 9, submissions: 10, maxErrorRate: 0.5 } });
  });

  it('counts only the sliding window', () => {
    const { clock, killSwitch, trips } = setup({ maxErrorRate: 0.5, minSample: 10, errorWindowMs: 60_000 });
    for (let i = 0; i < 10; i++) killSwitch.recordSubmission();
    for (let i = 0; i < 4; i++) killSwitch.recordFailure(); // 4/10
    clock.advanceBy(30_000);
    for (let i = 0; i < 10; i++) killSwitch.recordSubmission();
    killSwitch.recordFailure(); // 5/20
    clock.advanceBy(31_000); // the first ten and their failures leave the window
    expect(killSwitch.errorRate()).toEqual({ submissions: 10, failures: 1, rate: 0.1 });
    for (let i = 0; i < 3; i++) killSwitch.recordFailure(); // 4/10
    expect(trips).toEqual([]);
    killSwitch.recordFailure(); // 5/10
    expect(trips.map((trip) => trip.trigger)).toEqual(['error-rate']);
  });
});
