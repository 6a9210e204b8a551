/**
 * Crashes: a compaction that dies at any file-system step, and a process killed with SIGKILL right
 * after `append` returned. Reopening must find every record.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { summarizeIntent } from '../../src/execution/journal-record.ts';
import { compactionTempPath, openJournal, type Journal, type JournalFs, type UnresolvedRequest } from '../../src/execution/journal.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { hasCode, MARKET_A, placement, requestIds, spyFs, T0, tempDir, TX, WALLET_ADDRESS } from './execution-support.ts';

describe('journal under crashes', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: VirtualClock;

  beforeEach(() => {
    tmp = tempDir();
    clock = new VirtualClock(T0);
  });
  afterEach(() => tmp.remove());

  const openWith = (fs?: JournalFs) => openJournal({ clock, ...(fs ? { fs } : {}) }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });

  /** Ten requests, every other one settled, the highest nonce settled: compaction has work to do. */
  function fill(journal: Journal): { readonly floor: bigint; readonly unresolved: readonly UnresolvedRequest[] } {
    const nextId = requestIds(clock, 3);
    for (let i = 0; i < 10; i++) {
      const requestId = nextId();
      journal.append({
        kind: 'signed',
        requestId,
        nonce: String(T0 + i),
        method: RelayMethod.executeReplaceBySlotPacked,
        intent: summarizeIntent(placement(MARKET_A)),
        body: `{"n":${i}}`,
      });
      journal.append({ kind: 'sent', requestId, transport: i % 3 === 0 ? 'rest' : 'ws' });
      if (i % 2 === 1) {
        journal.append({ kind: 'response', requestId, status: 'BROADCAST', txHash: TX(i) });
        journal.append({ kind: 'resolved', requestId, how: 'receipt', status: 'CONFIRMED', txHash: TX(i) });
      }
    }
    return { floor: journal.nonceFloor(), unresolved: journal.unresolved() };
  }

  /** How many file-system calls one successful compaction of `fill` makes. */
  function compactionSteps(): number {
    const spy = spyFs();
    const journal = openWith(spy.fs);
    fill(journal);
    const from = spy.calls.length;
    journal.compact();
    const steps = spy.calls.length - from;
    journal.close();
    tmp.remove();
    tmp = tempDir();
    return steps;
  }

  it('loses nothing when a compaction crashes at any step', () => {
    const steps = compactionSteps();
    expect(steps).toBeGreaterThanOrEqual(8); // open, write, fsync, close temp; rename; open, fsync, close dir; close, open journal
    for (let step = 0; step < steps; step++) {
      const spy = spyFs();
      const journal = openWith(spy.fs);
      const expected = fill(journal);
      spy.crashAt(step);
      const error = (() => {
        try {
          journal.compact();
          return undefined;
        } catch (caught) {
          return caught;
        }
      })();
      const op = spy.crashed()?.op;
      expect(op).toBeDefined();
      expect(hasCode(error, 'JOURNAL_UNAVAILABLE'), `step ${step} (${op})`).toBe(true);
      spy.closeLeftovers();

      const again = openWith();
      expect(again.restored.nonceFloor, `step ${step} (${op})`).toBe(expected.floor);
      expect(again.restored.unresolved, `step ${step} (${op})`).toEqual(expected.unresolved);
      expect(existsSync(compactionTempPath(again.path))).toBe(false);
      // and it goes on: a new record lands after whatever survived
      const { requestId } = expected.unresolved[0]!;
      again.append({ kind: 'resolved', requestId, how: 'never-sent', status: 'NOT_SENT' });
      again.close();
      expect(openWith().restored.unresolved).toEqual(expected.unresolved.slice(1));
      tmp.remove();
      tmp = tempDir();
    }
  });

  it('recovers from a complete temp file that was never renamed', () => {
    const spy = spyFs();
    const journal = openWith(spy.fs);
    const expected = fill(journal);
    const before = readFileSync(journal.path, 'utf8');
    const renameAt = 4; // openSync, writeSync, fsyncSync, closeSync of the temp file, then renameSync
    spy.crashAt(renameAt);
    expect(() => journal.compact()).toThrow();
    expect(spy.crashed()?.op).toBe('renameSync');
    spy.closeLeftovers();
    const temp = compactionTempPath(journal.path);
    expect(existsSync(temp)).toBe(true);
    expect(readFileSync(journal.path, 'utf8')).toBe(before);

    const again = openWith();
    expect(again.restored).toMatchObject({ nonceFloor: expected.floor, unresolved: expected.unresolved, removedTempFile: true });
    expect(existsSync(temp)).toBe(false);
    again.close();
  });

  it('recovers when the rename happened but the directory was not fsynced, old file and temp both present', () => {
    // What a power cut can leave when the rename's directory entry never reached the disk: the old
    // journal under its name and the complete temp file beside it.
    const journal = openWith();
    const expected = fill(journal);
    const old = readFileSync(journal.path);
    journal.compact();
    journal.close();
    const compacted = readFileSync(journal.path);
    writeFileSync(compactionTempPath(journal.path), compacted);
    writeFileSync(journal.path, old);
    const fromOld = openWith();
    expect(fromOld.restored).toMatchObject({ nonceFloor: expected.floor, unresolved: expected.unresolved, removedTempFile: true });
    fromOld.close();
    // and when it did reach the disk: the compacted journal alone
    writeFileSync(journal.path, compacted);
    const fromNew = openWith();
    expect(fromNew.restored).toMatchObject({ nonceFloor: expected.floor, unresolved: expected.unresolved, removedTempFile: false });
    fromNew.close();
  });

  it('has the record on disk when the process is killed with SIGKILL right after append returns', async () => {
    const requestId = requestIds(clock, 11)();
    const child = spawn(process.execPath, ['bin/run-ts.js', 'test/execution/fixtures/journal-append-child.ts', tmp.dir, requestId, '424242'], {
      cwd: new URL('../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('appended')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`child exited before appending: ${stderr}`)));
    });
    expect(await exit).toBe('SIGKILL');
    const journal = openJournal({ clock }, { dir: tmp.dir, network: 'sim', wallet: '0x2222222222222222222222222222222222222222' });
    expect(journal.restored.nonceFloor).toBe(424242n);
    expect(journal.restored.unresolved.map((request) => request.requestId)).toEqual([requestId]);
    journal.close();
  });
});
