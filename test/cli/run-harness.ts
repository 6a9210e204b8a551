/**
 * Pieces of the `clobbot run` tests: a fast sim config (short blocks, one market, brisk flow), run
 * files, strategy modules written for a test (inside the project, so `clobbot` and `rxjs` resolve),
 * and the numbers of a printed summary.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { tempDir } from '../support/cli-harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface Workspace {
  /** A temp directory of the test (run files, journals). */
  readonly dir: string;
  /** A sim config for the in-process venue: 50 ms blocks, MON_USDC only, a brisk flow, order events cached 100 ms. */
  simConfig(options?: { readonly blockMs?: number; readonly marketPerSecond?: number; readonly limitPerSecond?: number }): string;
  /** A run file (YAML lines joined); returns its path. */
  runFile(name: string, lines: readonly string[]): string;
  /** A strategy module; returns its path (absolute, inside the project). */
  strategy(name: string, source: string): string;
  remove(): void;
}

export function workspace(): Workspace {
  const tmp = tempDir();
  mkdirSync(join(ROOT, '.clobbot'), { recursive: true });
  const modules = mkdtempSync(join(ROOT, '.clobbot', 'test-strategies-'));
  return {
    dir: tmp.dir,
    simConfig(options = {}) {
      const document = parseDocument(readFileSync(join(ROOT, 'config/sim.yaml'), 'utf8'));
      document.set('blockMs', options.blockMs ?? 50);
      document.deleteIn(['markets', 1]);
      document.setIn(['markets', 0, 'flow', 'arrivalsPerSecond', 'market'], options.marketPerSecond ?? 4);
      document.setIn(['markets', 0, 'flow', 'arrivalsPerSecond', 'limit'], options.limitPerSecond ?? 10);
      // Fills reach the engine through order events: a short cache keeps them close behind the blocks.
      document.setIn(['userData', 'orderEventsCacheMs'], 100);
      document.deleteIn(['funding', 'default', 'WETH']);
      return tmp.write(`sim-${options.blockMs ?? 50}-${options.marketPerSecond ?? 4}.yaml`, document.toString());
    },
    runFile: (name, lines) => tmp.write(name, `${lines.join('\n')}\n`),
    strategy(name, source) {
      const path = join(modules, name);
      writeFileSync(path, source);
      return path;
    },
    remove() {
      tmp.remove();
      rmSync(modules, { recursive: true, force: true });
    },
  };
}

/** The common part of a test run file: network sim, ephemeral wallet, MON_USDC, generous risk limits. */
export function runLines(options: { readonly simConfig?: string; readonly venueUrl?: string; readonly wallet?: string; readonly duration?: string; readonly extra?: readonly string[] }): string[] {
  return [
    'network: sim',
    ...(options.venueUrl === undefined ? [] : [`venueUrl: ${options.venueUrl}`]),
    ...(options.simConfig === undefined ? [] : [`simConfig: ${options.simConfig}`]),
    `wallet: ${options.wallet ?? '{ ephemeral: true }'}`,
    'markets: [MON_USDC]',
    'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, maxOrdersPerSecond: 200 }',
    'logging: { level: info }',
    `duration: ${options.duration ?? '5s'}`,
    ...(options.extra ?? []),
  ];
}

/** `placed 12, cancelled 10, filled 2 (3 fills), open after stop 0` of a summary, per market. */
export function summaryCounts(stdout: string, symbol = 'MON_USDC'): { placed: number; cancelled: number; filled: number; fills: number; openAfterStop: number | undefined } {
  const block = stdout.slice(stdout.indexOf(`  ${symbol}\n`));
  const match = /orders {6}placed (\d+), cancelled (\d+), filled (\d+) \((\d+) fills?\)(?:, open after stop (\d+))?/.exec(block);
  if (match === null) throw new Error(`no summary for ${symbol} in:\n${stdout}`);
  return {
    placed: Number(match[1]),
    cancelled: Number(match[2]),
    filled: Number(match[3]),
    fills: Number(match[4]),
    openAfterStop: match[5] === undefined ? undefined : Number(match[5]),
  };
}

export interface WatchedIo {
  readonly io: CliIo;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves once `predicate` holds over what was written (checked after every write), so a test
   * waits for the line that proves a run got far enough; rejects when `ended` settles first.
   */
  until(predicate: (output: { readonly stdout: string; readonly stderr: string }) => boolean, what: string, ended: Promise<unknown>): Promise<void>;
}

/** A CLI io (not a terminal unless told) that keeps what was written and can wait for it. */
export function watchedIo(options: { readonly isTty?: boolean; readonly env?: CliIo['env'] } = {}): WatchedIo {
  const output = { stdout: '', stderr: '' };
  const checks = new Set<() => void>();
  const wrote = (stream: 'stdout' | 'stderr', text: string) => {
    output[stream] += text;
    for (const check of checks) check();
  };
  return {
    io: { stdout: { write: (text) => wrote('stdout', text) }, stderr: { write: (text) => wrote('stderr', text) }, env: options.env ?? {}, isTty: options.isTty ?? false },
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    until(predicate, what, ended) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(output)) return;
          checks.delete(check);
          resolve();
        };
        checks.add(check);
        check();
        const early = () => {
          if (!checks.delete(check)) return;
          reject(new Error(`the run ended before ${what}; stderr: ${output.stderr.slice(-2000)}`));
        };
        ended.then(early, early);
      });
    },
  };
}

/** The JSON `status` log records of a run that is not on a terminal (its stderr). */
export function statusRecords(stderr: string): { readonly markets: readonly { readonly placed: number; readonly openOrders: number }[] }[] {
  return stderr
    .split('\n')
    .filter((line) => line.includes('"msg":"status"'))
    .map((line) => JSON.parse(line));
}

/** No stack trace lines in a CLI output. */
export function hasStackTrace(text: string): boolean {
  return /\n\s+at [^\n]+:\d+:\d+/.test(text);
}

/** One resting post-only buy 100 bp under the first mid, then `after` (an rxjs expression of `ctx`). */
export const restingThen = (after: string) => `
import { concat, map, take, timer, mergeMap, throwError, NEVER } from 'rxjs';
import { defineStrategy, priceAtOffset, z } from 'clobbot';
export default defineStrategy({
  name: 'resting-then',
  params: z.strictObject({}),
  create: (ctx) => {
    const market = [...ctx.markets.values()][0];
    return concat(
      market.feed.mid$.pipe(take(1), map((mid) => ({
        type: 'PlaceAndCancel', market: market.spec.address, purpose: 'test', cancelSlots: [],
        orders: [{ side: 'BUY', price: priceAtOffset(mid, 100, 'BUY', market.spec.tickSize), size: 50000n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n }],
      }))),
      ${after},
    );
  },
});
`;

/**
 * What a run whose strategy `later` (a `restingThen` module) errored after placing its order must show,
 * live or virtual: exit 1, STRATEGY_FAILED named, its order placed and cancelled, nothing left open.
 */
export function expectFailedStrategyRun(result: { readonly code: number; readonly stdout: string; readonly stderr: string }, module: string): void {
  expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(1);
  expect(result.stderr).toContain(`error STRATEGY_FAILED: strategy later (${module}) failed: lost my way\n`);
  const counts = summaryCounts(result.stdout);
  expect(counts.placed).toBe(1);
  expect(counts.cancelled).toBe(1);
  expect(counts.openAfterStop).toBe(0);
  expect(result.stdout).toMatch(/run summary: [0-9.]+ s, stopped because strategy later failed \(STRATEGY_FAILED\)/);
  expect(hasStackTrace(result.stderr)).toBe(false);
}
