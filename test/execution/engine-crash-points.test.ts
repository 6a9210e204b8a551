/**
 * A crash at every point of an intent's way from the journal to the wire (the in-process venue,
 * virtual time): the engine writes the `planned` record, has it fsynced while it signs, writes the
 * `signed` record and sends once the fsync is done. The process is killed before and after each of
 * those steps and after the request left, once as a process crash (the kernel keeps what was
 * written) and once as a power loss (what was written since the last fsync is gone). A new engine
 * on the same journal then must lose nothing (an order the venue has is known and settled) and
 * duplicate nothing (one order at most; every new nonce above the old one).
 */
import { statSync, truncateSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.ts';
import type { JournalFs } from '../../src/execution/journal.ts';
import type { RelayTransport } from '../../src/execution/relay-transport.ts';
import type { RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { readJournalRecords } from '../../src/execution/journal-history.ts';
import { journalPath } from '../../src/execution/journal.ts';
import { lower } from '../sim/relay-harness.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  currentState,
  engineOn,
  placeIntent,
  run,
  startEngineVenue,
  tearDownEngineWorld,
  tempJournalDir,
  until,
  WALLET,
  type EngineSetup,
  type EngineVenue,
} from './engine-support.ts';

/** Where the process dies: the journal step and whether before or after it, or once the request left. */
const POINTS = [
  'before the planned write',
  'after the planned write',
  'after the planned fsync',
  'before the signed write',
  'after the signed write',
  'as the venue receives the request',
  'after the request left',
] as const;
type Point = (typeof POINTS)[number];

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let doomed: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  doomed?.process.kill();
  tearDownEngineWorld({ setup, v, tmp });
  v = setup = doomed = tmp = undefined;
});

/**
 * The doomed engine's journal file system: it kills the process at `point`, and on a power loss
 * cuts the journal back to what was fsynced. Its fsync takes a millisecond of the clock, as a
 * disk's does, so a request sent before its record is durable would be caught. Bound to the
 * process's own file system once it exists.
 */
function killingFs(point: Point, powerLoss: boolean, clock: Clock, kill: () => void) {
  let inner: JournalFs | undefined;
  let dead = false;
  // Bytes of the journal file written since it was opened, covered by a finished fsync, and up to the last planned record.
  let written = 0;
  let synced = 0;
  let plannedEnd = 0;
  let journalFd: number | undefined;
  let journalFile = '';
  const crash = () => {
    dead = true;
    kill();
    if (powerLoss && written > synced) truncateSync(journalFile, statSync(journalFile).size - (written - synced));
  };
  const die = () => {
    crash();
    throw new Error(`killed ${point}`);
  };
  const recordKind = (buffer: Uint8Array, offset: number, length: number) => /"kind":"([a-z-]+)"/.exec(Buffer.from(buffer.subarray(offset, offset + length)).toString('utf8'))?.[1];
  const fs: JournalFs = {
    openSync: (path, flags, mode) => {
      const fd = inner!.openSync(path, flags, mode);
      if (path.endsWith('.journal.jsonl') && flags === 'a') [journalFd, journalFile] = [fd, path];
      return fd;
    },
    writeSync: (fd, buffer, offset, length) => {
      const kind = fd === journalFd ? recordKind(buffer, offset, length) : undefined;
      if (!dead && kind === 'planned' && point === 'before the planned write') die();
      if (!dead && kind === 'signed' && point === 'before the signed write') die();
      const count = inner!.writeSync(fd, buffer, offset, length);
      if (fd === journalFd) written += count;
      if (kind === 'planned') plannedEnd = written;
      if (!dead && kind === 'planned' && point === 'after the planned write') die();
      if (!dead && kind === 'signed' && point === 'after the signed write') die();
      return count;
    },
    fsyncSync: (fd) => {
      inner!.fsyncSync(fd);
      if (fd === journalFd) synced = written;
    },
    fsync: (fd, done) => {
      const covering = fd === journalFd ? written : 0;
      clock.scheduler.schedule(() => {
        if (dead) return;
        inner!.fsyncSync(fd);
        const before = synced;
        synced = Math.max(synced, covering);
        if (synced > before && point === 'after the planned fsync') {
          try {
            die();
          } catch {
            return; // the process is gone: nothing hears of this fsync
          }
        }
        done(null);
      }, 1);
    },
    ftruncateSync: (fd, length) => inner!.ftruncateSync(fd, length),
    closeSync: (fd) => inner!.closeSync(fd),
    readFileSync: (path) => inner!.readFileSync(path),
    renameSync: (from, to) => inner!.renameSync(from, to),
    unlinkSync: (path) => inner!.unlinkSync(path),
    existsSync: (path) => inner!.existsSync(path),
    mkdirSync: (path, options) => inner!.mkdirSync(path, options),
  };
  return {
    fs,
    bind: (base: JournalFs) => (inner = base),
    killed: () => dead,
    /** The last planned record is on the disk. */
    plannedDurable: () => plannedEnd > 0 && synced >= plannedEnd,
    crash,
  };
}

/** The doomed engine's relay transport: tells what leaves (to check that its planned record is durable). */
function watchedTransport(inner: () => RelayTransport, leaving: (request: RelayRestRequest) => void): RelayTransport {
  return {
    get outcomes$() {
      return inner().outcomes$;
    },
    get lateResponses$() {
      return inner().lateResponses$;
    },
    get connection$() {
      return inner().connection$;
    },
    available: () => inner().available(),
    start: () => inner().start(),
    stop: () => inner().stop(),
    submit(request) {
      const answer = inner().submit(request);
      leaving(request);
      return answer;
    },
  };
}

async function crashAndRestart(point: Point, powerLoss: boolean): Promise<void> {
  const world = (v = await startEngineVenue({ blockMs: 200 }));
  tmp = tempJournalDir();
  const market = world.market.address;
  const price = 280_000n;
  const hook = killingFs(point, powerLoss, world.clock, () => doomed?.process.kill());
  const undurable: string[] = [];
  const transport = watchedTransport(
    () => first.relay.transport,
    (request) => {
      if (!hook.plannedDurable()) undurable.push(request.requestId);
    },
  );
  const arrivals = world.model.submissions$.subscribe(() => {
    if (point === 'as the venue receives the request' && !hook.killed()) hook.crash();
  });
  doomed = engineOn(world, tmp.dir, { overrides: { journalFs: hook.fs, transport } });
  hook.bind(doomed.process.journalFs);
  const first = doomed;
  await run(world, async () => {
    await first.engine.start();
    void first.engine.submit(placeIntent(market, [buy(price)]));
    if (point === 'after the request left' || point === 'as the venue receives the request') {
      await until(world, () => createdByPrice(world, market).has(price), 10_000, 'the order at the venue');
      first.process.kill();
    } else {
      await until(world, hook.killed, 10_000, `the crash ${point}`);
    }
  });
  arrivals.unsubscribe();
  expect(undurable, 'requests sent before their planned record was durable').toEqual([]);
  const path = journalPath({ dir: tmp.dir, network: 'sim', wallet: lower(WALLET) });
  const planned = readJournalRecords(path).flatMap((record) => (record.kind === 'planned' ? [BigInt(record.nonce)] : []));
  // What the venue has now is all it will ever have of the dead process's request.
  const atVenue = createdByPrice(world, market).get(price) ?? 0;
  expect(atVenue, 'orders at the venue').toBeLessThanOrEqual(1);
  // A request can only have left with its planned record durable.
  if (atVenue > 0) expect(planned.length, 'a planned record for the request that left').toBe(1);

  const next = (setup = engineOn(world, tmp.dir, { seed: 12 }));
  await run(world, async () => {
    await next.engine.start();
    await until(world, () => next.engine.stats().unresolved === 0, 30_000, 'every restored request settled');
    // Nothing lost: an order the venue holds is the engine's, with its slot.
    if (atVenue > 0) {
      await until(world, () => currentState(next, market).orders.some((order) => order.price === price && order.slot !== undefined), 10_000, 'the order known to the new engine');
    }
    // Nothing duplicated: a new intent signs above every earlier nonce, and no order is placed twice.
    expect(await next.engine.submit(placeIntent(market, [buy(price - 10n)]))).toMatchObject({ status: 'CONFIRMED' });
    const newNonces = next.journal.lines().flatMap((line) => {
      const record = JSON.parse(line) as { kind: string; nonce?: string };
      return record.kind === 'planned' ? [BigInt(record.nonce!)] : [];
    });
    expect(newNonces).toHaveLength(1);
    for (const old of planned) expect(newNonces[0]!).toBeGreaterThan(old);
    for (const [at, count] of createdByPrice(world, market)) expect(count, `orders at ${at}`).toBe(1);
    expect((await next.engine.stop()).unresolved).toBe(0);
  });
  expect(auditJournal(next.journal.lines(), tmp.dir).problems).toEqual([]);
}

describe('a crash at every point between the journal and the wire', () => {
  for (const powerLoss of [false, true]) {
    for (const point of POINTS) {
      it(`${powerLoss ? 'power loss' : 'process crash'} ${point}: nothing lost, nothing sent twice`, { timeout: 60_000 }, () => crashAndRestart(point, powerLoss));
    }
  }
});
