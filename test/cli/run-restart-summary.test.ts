/**
 * A run killed mid-run (SIGKILL, fills made, requests in flight) and started again on the same
 * wallet and journal: the second run's summary covers the second run. Fills from before it (the
 * engine reads the account's events again from the journal's oldest request) and requests the first
 * run signed and the second settled are shown apart as carried over, never in its own figures.
 * Against `clobbot sim` on loopback (the first run a real process, killed), outcomes held back 1.5 s
 * so that requests are in flight when it dies.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { lower, postJson, startTestVenue, WALLET, type TestVenue } from '../sim/relay-harness.ts';
import { runLines, watchedIo, workspace, type Workspace } from './run-harness.ts';

const WALLET_KEY = `0x${'b2'.repeat(32)}`;
const ROOT = new URL('../..', import.meta.url).pathname;

let ws: Workspace | undefined;
let venue: TestVenue | undefined;
afterEach(async () => {
  ws?.remove();
  ws = undefined;
  await venue?.stop();
  venue = undefined;
});

/**
 * Requests of the journal without a `resolved` record: all of them, and those only planned (caught
 * between their `planned` record and their send: a restart can only settle those at their deadline,
 * 60 s, longer than the second run; test/execution/engine-crash-points.test.ts covers them).
 */
function unresolvedInJournal(path: string): { readonly all: number; readonly onlyPlanned: number } {
  const open = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    let record: { kind: string; requestId?: string };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // a torn last line (the kill came inside an append)
    }
    if (record.kind === 'planned' || record.kind === 'signed') open.set(record.requestId!, record.kind);
    if (record.kind === 'resolved') open.delete(record.requestId!);
  }
  return { all: open.size, onlyPlanned: [...open.values()].filter((kind) => kind === 'planned').length };
}

interface Summary {
  readonly markets: readonly { readonly fills: number; readonly carriedOver: { readonly fills: number } }[];
  readonly engine: { readonly signed: number; readonly confirmed: number; readonly reverted: number; readonly dropped: number; readonly carriedOver: { confirmed: number; reverted: number; dropped: number } };
}

describe('clobbot run after a crash: the summary covers its own run', () => {
  it("a restarted run counts only its own fills and requests; the first run's are listed as carried over", async () => {
    venue = await startTestVenue({ blockMs: 50, backgroundFlow: true });
    expect((await postJson(`${venue.url}/sim/faults`, { outcomeDelayMs: 1_500 })).status).toBe(200);
    ws = workspace();
    const journalDir = `${ws.dir}/journal`;
    const file = ws.runFile('mm.yaml', [
      ...runLines({ venueUrl: venue.url, simConfig: ws.simConfig(), wallet: '{ privateKeyEnv: CLOBBOT_KEY }', duration: '60s' }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 2, levelSpacingBps: 2, size: "500", maxInventory: "50000", requoteThresholdBps: 1 } }',
    ]);
    const model = venue.server.venue;
    const trades = () => {
      const accountId = model.resolveAccount(lower(WALLET));
      return accountId === undefined ? 0 : model.orderEvents(accountId, { limit: 1, offset: 0, eventType: 'trade' }).total;
    };

    // The first run: a process, killed once the account has fills.
    const first = spawn(process.execPath, ['bin/clobbot.js', 'run', file, '--journal-dir', journalDir], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', CLOBBOT_KEY: WALLET_KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let firstErr = '';
    first.stderr.on('data', (chunk: Buffer) => (firstErr += chunk.toString()));
    const firstExit = new Promise<NodeJS.Signals | null>((resolve) => first.on('close', (_code, signal) => resolve(signal)));
    const journalFile = `${journalDir}/sim-${lower(WALLET)}.journal.jsonl`;
    const journaled = () => (existsSync(journalFile) ? unresolvedInJournal(journalFile) : { all: 0, onlyPlanned: 0 });
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        // Killed with fills and with a request in flight (the compiled CLI is quick: a moment after a fill may have none),
        // and none only planned.
        const open = trades() >= 3 ? journaled() : undefined;
        if (open !== undefined && open.all > 0 && open.onlyPlanned === 0) {
          clearInterval(check);
          resolve();
        }
      }, 50);
      void firstExit.then(() => {
        clearInterval(check);
        reject(new Error(`the first run ended before it had fills: ${firstErr.slice(-2000)}`));
      });
    });
    first.kill('SIGKILL');
    expect(await firstExit).toBe('SIGKILL');
    const tradesAtKill = trades();
    const unresolved = unresolvedInJournal(`${journalDir}/sim-${lower(WALLET)}.journal.jsonl`).all;
    expect(unresolved, 'requests in flight when the first run died').toBeGreaterThan(0);

    // The second run: same wallet, same journal.
    const summaryFile = `${ws.dir}/summary.json`;
    const out = watchedIo({ env: { CLOBBOT_KEY: WALLET_KEY } });
    const code = await runCommandMain([file, '--journal-dir', journalDir, '--duration', '6', '--summary', summaryFile], out.io);
    expect(code, out.stdout() + out.stderr().slice(-2000)).toBe(0);
    const tradesAtEnd = trades();
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary;
    const [market] = summary.markets;

    // Fills: every fill of the account counted once, and the first run's not as the second's.
    expect(market!.carriedOver.fills).toBeGreaterThanOrEqual(tradesAtKill);
    expect(market!.fills + market!.carriedOver.fills).toBe(tradesAtEnd);
    expect(market!.fills).toBeLessThanOrEqual(tradesAtEnd - tradesAtKill);
    // Requests: the second run's counts add up to at most what it signed; the first run's are apart.
    const { engine } = summary;
    expect(engine.confirmed + engine.reverted + engine.dropped).toBeLessThanOrEqual(engine.signed);
    expect(engine.carriedOver.confirmed + engine.carriedOver.reverted + engine.carriedOver.dropped).toBe(unresolved);

    // The printed summary shows the same, apart.
    const stdout = out.stdout();
    expect(stdout).toMatch(new RegExp(`\\n {4}orders {6}placed \\d+, cancelled \\d+, filled \\d+ \\(${market!.fills} fills?\\), open after stop 0\\n`));
    expect(stdout).toContain(
      `  carried over ${unresolved} ${unresolved === 1 ? 'request' : 'requests'} of an earlier run settled (confirmed ${engine.carriedOver.confirmed}, reverted ${engine.carriedOver.reverted}, dropped ${engine.carriedOver.dropped}); ` +
        `MON_USDC ${market!.carriedOver.fills} fills from before this run (`,
    );
  }, 90_000);
});
