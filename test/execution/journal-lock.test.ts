/**
 * One wallet, one running bot: the journal's lock refuses a second process naming the first, is let
 * go on close, and a lock left by a process that is gone is taken over. Real files, a real second
 * process (a child that takes the lock and waits), and a real dead one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { openJournal } from '../../src/execution/journal.ts';

const clock = { now: () => Date.UTC(2026, 0, 1) };
const WALLET = '0x2222222222222222222222222222222222222222';
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const open = () => openJournal({ clock }, { dir, network: 'sim', wallet: WALLET });
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('the journal lock', () => {
  it('refuses a second process, naming it, until the first lets go', async () => {
    dir = mkdtempSync(join(tmpdir(), 'clobbot-lock-'));
    // A child process takes the journal and holds it until told to stop.
    const script = `import { openJournal } from ${JSON.stringify(resolve('src/execution/journal.ts'))};
const journal = openJournal({ clock: { now: () => 0 } }, { dir: ${JSON.stringify(dir)}, network: 'sim', wallet: '${WALLET}' });
process.stdout.write('held\\n');
process.stdin.on('data', () => { journal.close(); process.exit(0); });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    const error = refusal(open);
    expect(isBaseError(error) && error.code).toBe('JOURNAL_LOCKED');
    expect((error as Error).message).toMatch(new RegExp(`is in use by process ${child.pid} on ${hostname()} since .*: one wallet, one running bot`));
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.write('stop\n');
    await exited;
    const journal = open();
    journal.close();
    expect(existsSync(`${journal.path}.lock`)).toBe(false);
  }, 30_000);

  it('takes over the lock of a process that is gone', () => {
    dir = mkdtempSync(join(tmpdir(), 'clobbot-lock-'));
    const first = open();
    const lock = `${first.path}.lock`;
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    first.close();
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), since: '2026-01-01T00:00:00.000Z', token: `${dead}-1` }));
    const journal = open();
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    journal.close();
  });

  it('never takes over the lock of another host, nor one it cannot read', () => {
    dir = mkdtempSync(join(tmpdir(), 'clobbot-lock-'));
    const path = open();
    path.close();
    writeFileSync(`${path.path}.lock`, JSON.stringify({ pid: 1, host: 'elsewhere', since: '2026-01-01T00:00:00.000Z', token: '1-1' }));
    expect((refusal(open) as Error).message).toMatch(/in use by process 1 on elsewhere/);
    writeFileSync(`${path.path}.lock`, '{"pid":');
    expect((refusal(open) as Error).message).toMatch(/in use by another process/);
  });
});

describe('an unusable journal location', () => {
  it('fails at once with JOURNAL_UNAVAILABLE and its reason: under /proc (where a recursive mkdir spins forever) or under a file', () => {
    dir = mkdtempSync(join(tmpdir(), 'clobbot-lock-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    for (const [location, reason] of [
      ['/proc/clobbot-journal-test/state', /cannot open \(ENOENT: no such file or directory, mkdir '\/proc\/clobbot-journal-test'\)/],
      [join(file, 'journals'), /cannot open \(ENOTDIR: not a directory/],
    ] as const) {
      const error = refusal(() => openJournal({ clock }, { dir: location, network: 'sim', wallet: WALLET }));
      expect(isBaseError(error) && error.code).toBe('JOURNAL_UNAVAILABLE');
      expect((error as Error).message).toMatch(reason);
    }
  });
});
