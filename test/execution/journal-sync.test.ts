/**
 * `Journal.write` and `Journal.sync` (journal-sync.ts): records written without waiting become
 * durable with one fsync shared by the callers waiting; a failed fsync fails the journal. The file
 * system's async fsync is held by the test, so each step is seen.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { summarizeIntent } from '../../src/execution/journal-record.ts';
import { nodeJournalFs, openJournal, type Journal, type JournalFs } from '../../src/execution/journal.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { hasCode, MARKET_A, placement, requestIds, T0, tempDir, WALLET_ADDRESS } from './execution-support.ts';

/** node:fs whose async fsyncs wait until the test lets them finish (or fail). */
function heldFsyncFs() {
  const held: { fd: number; done: (error: unknown) => void }[] = [];
  let syncCalls = 0;
  const fs: JournalFs = {
    ...nodeJournalFs,
    fsync: (fd, done) => {
      syncCalls += 1;
      held.push({ fd, done });
    },
  };
  return {
    fs,
    held: () => held.length,
    syncCalls: () => syncCalls,
    finish(failure: unknown = null) {
      const next = held.shift()!;
      let error = failure;
      try {
        if (error === null) nodeJournalFs.fsyncSync(next.fd);
      } catch (fsyncError) {
        error = fsyncError;
      }
      next.done(error);
    },
  };
}

describe('journal write and sync', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal | undefined;
  const clock = new VirtualClock(T0);
  const nextId = requestIds(clock, 5);
  const planned = (nonce: number) => ({
    kind: 'planned' as const,
    requestId: nextId(),
    nonce: String(nonce),
    method: RelayMethod.executeBatch,
    intent: summarizeIntent(placement(MARKET_A)),
    unsigned: '{"n":1}',
  });

  beforeEach(() => (tmp = tempDir()));
  afterEach(() => {
    journal?.close();
    journal = undefined;
    tmp.remove();
  });

  it('resolves a sync once the fsync that covers its writes is done; later waiters share the next one', async () => {
    const disk = heldFsyncFs();
    journal = openJournal({ clock, fs: disk.fs }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    const seen: string[] = [];
    journal.write(planned(1));
    const first = journal.sync().then(() => seen.push('first'));
    expect(disk.held()).toBe(1);
    // Written while the first fsync runs: it waits for another, which starts only after the first.
    journal.write(planned(2));
    const second = journal.sync().then(() => seen.push('second'));
    const third = journal.sync().then(() => seen.push('third'));
    expect(disk.held()).toBe(1);
    disk.finish();
    await first;
    expect(seen).toEqual(['first']);
    expect(disk.held()).toBe(1);
    disk.finish();
    await Promise.all([second, third]);
    expect(seen).toEqual(['first', 'second', 'third']);
    // Nothing written since: no fsync.
    await journal.sync();
    expect(disk.syncCalls()).toBe(2);
  });

  it('keeps what was written for a reopening, and the planned request is unresolved with its unsigned body', async () => {
    const disk = heldFsyncFs();
    journal = openJournal({ clock, fs: disk.fs }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    const record = planned(7);
    journal.write(record);
    const durable = journal.sync();
    disk.finish();
    await durable;
    journal.close();
    journal = openJournal({ clock }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    expect(journal.restored.nonceFloor).toBe(7n);
    expect(journal.restored.unresolved).toMatchObject([{ requestId: record.requestId, body: undefined, unsigned: '{"n":1}', nonce: 7n }]);
  });

  it('a signed record completes its planned one once; another nonce or a second signed record is refused', () => {
    journal = openJournal({ clock }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    const record = planned(3);
    journal.write(record);
    const signed = { kind: 'signed' as const, requestId: record.requestId, nonce: '3', method: record.method, intent: record.intent, body: '{"signed":1}' };
    expect(() => journal!.write({ ...signed, nonce: '4' })).toThrow(expect.objectContaining({ code: 'JOURNAL_RECORD_INVALID' }));
    journal.write(signed);
    expect(() => journal!.write(signed)).toThrow(expect.objectContaining({ code: 'JOURNAL_RECORD_INVALID' }));
    expect(() => journal!.write(planned(3))).toThrow(expect.objectContaining({ code: 'JOURNAL_RECORD_INVALID' }));
    expect(journal.unresolved()).toMatchObject([{ requestId: record.requestId, body: '{"signed":1}', unsigned: '{"n":1}' }]);
  });

  it('a failed fsync rejects its waiters and fails the journal: nothing more is written', async () => {
    const disk = heldFsyncFs();
    journal = openJournal({ clock, fs: disk.fs }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    journal.write(planned(1));
    const durable = journal.sync();
    disk.finish(Object.assign(new Error('EIO'), { code: 'EIO' }));
    await expect(durable).rejects.toSatisfy((error: unknown) => hasCode(error, 'JOURNAL_UNAVAILABLE'));
    expect(() => journal!.write(planned(2))).toThrow(expect.objectContaining({ code: 'JOURNAL_UNAVAILABLE' }));
    await expect(journal.sync()).rejects.toSatisfy((error: unknown) => hasCode(error, 'JOURNAL_UNAVAILABLE'));
  });

  it('close makes what was written durable, and resolves whoever waits', async () => {
    const disk = heldFsyncFs();
    journal = openJournal({ clock, fs: disk.fs }, { dir: tmp.dir, network: 'sim', wallet: WALLET_ADDRESS });
    journal.write(planned(1));
    const durable = journal.sync();
    journal.close();
    await expect(durable).resolves.toBeUndefined();
    // The fsync still held belongs to a closed file (EBADF now): its end changes nothing.
    disk.finish();
    await expect(journal.sync()).resolves.toBeUndefined();
    journal = undefined;
  });
});
