/** Shared pieces of the execution tests: temp dirs, request ids, intents, a spying file-system seam. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseError } from '../../src/core/base-error.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { nodeJournalFs, type JournalFs } from '../../src/execution/journal.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { Intent } from '../../src/strategy/intents.ts';

export const T0 = Date.UTC(2024, 7, 8);
export const WALLET_ADDRESS = '0x1111111111111111111111111111111111111111';
export const MARKET_A = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' as Address;
export const MARKET_B = '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' as Address;
export const TX = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

export function tempDir(): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-journal-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** UUIDv7 request ids from a seeded source on `clock`. */
export function requestIds(clock = new VirtualClock(T0), seed = 7): () => string {
  const ids = createIdSource({ clock, random: seededRandom(seed) });
  return () => ids.next();
}

/** A placement: a one-order batch. */
export function placement(market: Address, purpose = 'quotes', price = 100n): Intent {
  return {
    type: 'PlaceAndCancel',
    market,
    purpose,
    cancelSlots: [],
    orders: [{ side: 'BUY', price, size: 10n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
  };
}

/** A risk-reducing slot cancel. */
export function slotCancel(market: Address, purpose = 'quotes', slot = 0): Intent {
  return { type: 'ReplaceSlots', market, purpose, ops: [{ slotIdx: slot, kind: 'cancel' }] };
}

export type FsCall = { readonly op: keyof JournalFs; readonly path?: string; readonly fd?: number };

/**
 * node:fs behind a seam that logs every call and can crash: `crashAt(n)` makes the n-th call from
 * now (0-based) throw before it does anything, except a `writeSync`, which first writes half its bytes
 * (a torn write). After the crash every call fails, as if the process had died. Opened descriptors are remembered so a test can close what a crash left open.
 */
export function spyFs(base: JournalFs = nodeJournalFs) {
  const calls: FsCall[] = [];
  const paths = new Map<number, string>();
  const open = new Set<number>();
  let countdown: number | undefined;
  let dead = false;
  let crashed: FsCall | undefined;
  /** True when this call crashes; after a crash every call fails (the process is gone). */
  const crash = (op: keyof JournalFs): boolean => {
    if (dead) throw Object.assign(new Error(`${op} after the simulated crash`), { simulated: true });
    if (countdown === undefined) return false;
    if (countdown === 0) {
      countdown = undefined;
      dead = true;
      crashed = calls.at(-1);
      return true;
    }
    countdown -= 1;
    return false;
  };
  const crashError = (op: string) => Object.assign(new Error(`simulated crash at ${op}`), { simulated: true });
  const fs: JournalFs = {
    openSync(path, flags, mode) {
      calls.push({ op: 'openSync', path });
      if (crash('openSync')) throw crashError('openSync');
      const fd = base.openSync(path, flags, mode);
      paths.set(fd, path);
      open.add(fd);
      return fd;
    },
    writeSync(fd, buffer, offset, length) {
      calls.push({ op: 'writeSync', fd, path: paths.get(fd) });
      if (crash('writeSync')) {
        base.writeSync(fd, buffer, offset, Math.floor(length / 2));
        throw crashError('writeSync');
      }
      return base.writeSync(fd, buffer, offset, length);
    },
    fsyncSync(fd) {
      calls.push({ op: 'fsyncSync', fd, path: paths.get(fd) });
      if (crash('fsyncSync')) throw crashError('fsyncSync');
      base.fsyncSync(fd);
    },
    ftruncateSync(fd, length) {
      calls.push({ op: 'ftruncateSync', fd, path: paths.get(fd) });
      if (crash('ftruncateSync')) throw crashError('ftruncateSync');
      base.ftruncateSync(fd, length);
    },
    closeSync(fd) {
      calls.push({ op: 'closeSync', fd, path: paths.get(fd) });
      if (crash('closeSync')) throw crashError('closeSync');
      base.closeSync(fd);
      open.delete(fd);
    },
    readFileSync(path) {
      calls.push({ op: 'readFileSync', path });
      if (crash('readFileSync')) throw crashError('readFileSync');
      return base.readFileSync(path);
    },
    renameSync(from, to) {
      calls.push({ op: 'renameSync', path: `${from} -> ${to}` });
      if (crash('renameSync')) throw crashError('renameSync');
      base.renameSync(from, to);
    },
    unlinkSync(path) {
      calls.push({ op: 'unlinkSync', path });
      if (crash('unlinkSync')) throw crashError('unlinkSync');
      base.unlinkSync(path);
    },
    existsSync(path) {
      calls.push({ op: 'existsSync', path });
      if (crash('existsSync')) throw crashError('existsSync');
      return base.existsSync(path);
    },
    mkdirSync(path, options) {
      calls.push({ op: 'mkdirSync', path });
      if (crash('mkdirSync')) throw crashError('mkdirSync');
      base.mkdirSync(path, options);
    },
  };
  return {
    fs,
    calls,
    /** Crash the n-th call from now (0-based). */
    crashAt(n: number) {
      countdown = n;
    },
    /** The call that crashed, if one did. */
    crashed: () => crashed,
    /** Close every descriptor a crash left open (the process would have died). */
    closeLeftovers() {
      for (const fd of open) base.closeSync(fd);
      open.clear();
    },
  };
}

/** True when `error` is a BaseError with `code` (codes are plain strings here so new ones need no cast). */
export function hasCode(error: unknown, code: string): boolean {
  return error instanceof BaseError && error.code === code;
}
