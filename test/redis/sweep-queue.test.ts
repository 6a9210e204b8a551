/**
 * `clobbot sweep --queue` and `clobbot worker` processes on a Redis of the test's own: a 3×4 grid of
 * the reference market maker run through BullMQ by two workers, one of them killed with SIGKILL in
 * the middle of a job, gives the very bytes of the same sweep run locally, every run once; the sweep
 * run again collects the results from the queue without running anything; a run whose thread dies is
 * tried 3 times, then fails as it does locally, and afresh in a later sweep; a worker of other code
 * puts a job back and stops; a queue that cannot be reached, or is no Redis URL, is refused at once
 * and without its password.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_JOB_NAME, SWEEP_QUEUE } from '../../src/sweep/queue-job.ts';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, runLines, workspace, type Workspace } from '../cli/run-harness.ts';
import { freePort, startRedis, type TestRedis } from './redis-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GRID = ['--param', 'spreadBps=4,6,8', '--param', 'size=1000..4000:1000'];
const OUTPUTS = ['results.csv', 'results.json', 'sweep.html'];
/** A dead worker's job is back in the queue within about 2 + 1 s. */
const FAST_STALLS = ['--lock-duration', '2s', '--stalled-interval', '1s'];
const PASSWORD = 'hunter2-not-for-logs';

let redis: TestRedis;
let ws: Workspace;
let feed: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  ws = workspace();
  const recorded = await runCli(['record', '--symbol', 'MON_USDC', '--out', join(ws.dir, 'rec'), '--virtual', '--duration', '1m']);
  expect(recorded.code, recorded.stderr).toBe(0);
  feed = join(ws.dir, 'rec', readdirSync(join(ws.dir, 'rec'))[0]!);
});
afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
  await redis?.stop();
  ws?.remove();
});

const sweep = (out: string, args: readonly string[]) => runCli(['sweep', 'config/market-maker.yaml', '--feed', feed, ...args, '--out', join(ws.dir, out)]);
const bytes = (out: string, name: string) => readFileSync(join(ws.dir, out, name));
/** `sweep: 12 runs, 12 run now, 0 reused, 0 failed`. */
const counts = (stdout: string) => /sweep: (\d+) runs, (\d+) run now, (\d+) reused, (\d+) failed/.exec(stdout)!.slice(1).map(Number);

interface WorkerProcess {
  readonly child: ChildProcess;
  stdout(): string;
  /** The first match of `pattern` in the worker's stdout, once it is there. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

/** `clobbot worker` as a real process (bin/clobbot.js: the compiled CLI), one job at a time. */
function startWorker(url: string): WorkerProcess {
  const child = spawn(process.execPath, ['bin/clobbot.js', 'worker', '--queue', url, '--concurrency', '1', ...FAST_STALLS], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const worker: WorkerProcess = {
    child,
    stdout: () => stdout,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(stdout);
          if (match === null) return false;
          child.stdout!.off('data', look);
          resolve(match);
          return true;
        };
        if (look()) return;
        child.stdout!.on('data', look);
        void exited.then((code) => reject(new Error(`the worker exited (${code}) before ${pattern}:\n${stdout}${stderr}`)));
      }),
  };
  workers.push(worker);
  return worker;
}

/** The runs each worker finished, by hash. */
const finishedRuns = (...of: readonly WorkerProcess[]) => of.flatMap((worker) => [...worker.stdout().matchAll(/^worker: ([0-9a-f]{16}) ok in /gm)].map((match) => match[1]!));

describe('clobbot sweep --queue with clobbot worker processes', () => {
  it('runs 12 combinations on two workers, one killed mid-job: the bytes of the local sweep, every run exactly once; run again, collected from the queue', async () => {
    const local = await sweep('local', [...GRID, '--workers', '2']);
    expect(local.code, local.stderr + local.stdout).toBe(0);

    const doomed = startWorker(redis.url());
    const survivor = startWorker(redis.url());
    await Promise.all([doomed.waitFor(/^worker: taking sweep jobs from redis:\/\/127\.0\.0\.1:\d+\/0, 1 at a time/m), survivor.waitFor(/^worker: taking sweep jobs/m)]);
    const queued = sweep('queued', [...GRID, '--queue', redis.url()]);
    const [, killed] = await doomed.waitFor(/^worker: ([0-9a-f]{16}) started: /m);
    doomed.child.kill('SIGKILL');
    const result = await queued;

    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain(`12 to run through the queue at ${redis.url()}`);
    expect(counts(result.stdout)).toEqual([12, 12, 0, 0]);
    for (const name of OUTPUTS) expect(bytes('queued', name).equals(bytes('local', name)), name).toBe(true);
    const hashes = (JSON.parse(bytes('queued', 'results.json').toString()) as { runs: { hash: string }[] }).runs.map((run) => run.hash);
    expect(new Set(hashes).size).toBe(12);
    for (const hash of hashes) expect(bytes('queued', `runs/${hash}/summary.json`).equals(bytes('local', `runs/${hash}/summary.json`)), hash).toBe(true);

    // The killed job went back to the queue and ran again on the survivor; no run was finished twice.
    expect(await doomed.exited).toBe(null);
    expect(result.stdout).toMatch(new RegExp(`\\(${killed}\\): back in the queue \\(an attempt failed, or its worker stopped\\)\\n`));
    expect(survivor.stdout()).toMatch(new RegExp(`^worker: ${killed} started: .*\\(try 2 of 3\\)$`, 'm'));
    expect(finishedRuns(doomed)).toEqual([]);
    expect(finishedRuns(doomed, survivor).sort()).toEqual([...hashes].sort());

    // The same sweep into a fresh directory: every job is in the queue, finished; nothing runs again.
    const again = await sweep('again', [...GRID, '--queue', redis.url()]);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    for (const name of OUTPUTS) expect(bytes('again', name).equals(bytes('local', name)), name).toBe(true);
    expect(finishedRuns(survivor)).toHaveLength(12);
    expect(survivor.stdout().match(/ started: /g)).toHaveLength(12);

    survivor.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);
  });

  it('tries a run whose thread dies 3 times, then fails it as the local sweep does; a later sweep tries it afresh', async () => {
    // A strategy that ends its thread: not a clobbot error, so worth another try (on another machine, say).
    const module = ws.strategy('exits.ts', `import { EMPTY } from 'rxjs';
import { defineStrategy, z } from 'clobbot/strategy';
export default defineStrategy({ name: 'exits', params: z.strictObject({ exit: z.boolean() }), create: (ctx) => (ctx.params.exit ? process.exit(3) : EMPTY) });
`);
    const file = ws.runFile('exits.yaml', [...runLines({}), 'strategies:', `  - { name: x, module: ${module}, markets: [MON_USDC], params: { exit: false } }`]);
    const exits = (out: string, args: readonly string[]) => runCli(['sweep', file, '--feed', feed, '--param', 'exit=false,true', ...args, '--out', join(ws.dir, out)]);
    const local = await exits('exits-local', ['--workers', '2']);
    expect(local.code, local.stderr + local.stdout).toBe(1);
    expect(counts(local.stdout)).toEqual([2, 2, 0, 1]);

    const worker = startWorker(redis.url(2));
    await worker.waitFor(/^worker: taking sweep jobs/m);
    const queued = await exits('exits-queued', ['--queue', redis.url(2)]);
    expect(queued.code, queued.stderr + queued.stdout).toBe(1);
    expect(counts(queued.stdout)).toEqual([2, 2, 0, 1]);
    for (const name of OUTPUTS) expect(bytes('exits-queued', name).equals(bytes('exits-local', name)), name).toBe(true);
    expect(queued.stdout.match(/exit=true .*: back in the queue \(an attempt failed, or its worker stopped\)\n/g)).toHaveLength(2);
    const [, exited] = /^worker: ([0-9a-f]{16}) failed in [0-9.]+ s: unexpectedly: the worker thread running this job exited with code 3$/m.exec(worker.stdout())!;
    const tries = () => worker.stdout().match(new RegExp(`^worker: ${exited} started: `, 'gm'))!.length;
    expect(tries()).toBe(3);

    // Failed in Redis, missing from the directory: the sweep run again replaces the job, which gets its 3 tries again.
    const again = await exits('exits-queued', ['--queue', redis.url(2)]);
    expect(counts(again.stdout)).toEqual([2, 1, 1, 1]);
    expect(tries()).toBe(6);
    for (const name of OUTPUTS) expect(bytes('exits-queued', name).equals(bytes('exits-local', name)), name).toBe(true);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('has a worker of other code put the job back and stop with SWEEP_CODE_MISMATCH', async () => {
    const queue = new Queue(SWEEP_QUEUE.name, { connection: { url: redis.url(1) }, prefix: SWEEP_QUEUE.prefix });
    try {
      const job = { hash: '0123456789abcdef', runFile: { path: 'config/market-maker.yaml', text: 'network: sim\n' }, feed: { path: 'rec.raw', sha256: 'a'.repeat(64) }, seed: 1 };
      await queue.add(SWEEP_JOB_NAME, { job, code: { version: '0.0.1', commit: null } }, { jobId: job.hash });
      const worker = await runCli(['worker', '--queue', redis.url(1), '--concurrency', '1']);
      expect(worker.code).toBe(1);
      expect(worker.stderr).toMatch(/^error SWEEP_CODE_MISMATCH: job 0123456789abcdef comes from a sweep made with clobbot 0\.0\.1 \(no commit\); this worker runs 0\.1\.0 /);
      expect(await queue.getJobState(job.hash)).toBe('waiting');
      expect((await queue.getJob(job.hash))!.attemptsMade).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('refuses a Redis it cannot reach within seconds, and a --queue that is no Redis URL, never printing the password', async () => {
    const port = await freePort();
    const unreachable = `redis://:${PASSWORD}@127.0.0.1:${port}/0`;
    for (const args of [['sweep', 'config/market-maker.yaml', '--feed', feed, ...GRID, '--queue', unreachable, '--out', join(ws.dir, 'unreachable')], ['worker', '--queue', unreachable]]) {
      const startMs = Date.now();
      const result = await runCli(args);
      expect(Date.now() - startMs).toBeLessThan(6_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^error SWEEP_QUEUE_UNREACHABLE: cannot reach the sweep queue's Redis at redis://:\\[redacted\\]@127\\.0\\.0\\.1:${port}/0: .*ECONNREFUSED`));
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
      expect(hasStackTrace(result.stderr)).toBe(false);
    }
    expect(existsSync(join(ws.dir, 'unreachable'))).toBe(false);

    const refused = async (args: readonly string[], pattern: RegExp) => {
      const result = await runCli(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr).not.toContain(PASSWORD);
    };
    await refused(['sweep', 'config/market-maker.yaml', '--feed', feed, '--queue', `http://:${PASSWORD}@127.0.0.1:6379/0`], /^error CLI_USAGE: sweep: --queue must be redis:\/\/.*: the scheme is "http:"/);
    await refused(['sweep', 'config/market-maker.yaml', '--feed', feed, '--queue', `redis://:${PASSWORD}@127.0.0.1:6379/queue`], /^error CLI_USAGE: sweep: --queue must be .*: the path must be a database number/);
    await refused(['sweep', 'config/market-maker.yaml', '--feed', feed, '--queue', redis.url(), '--workers', '2'], /^error CLI_USAGE: sweep: --workers and --queue/);
    await refused(['worker', '--queue', `${PASSWORD}@127.0.0.1`], /^error CLI_USAGE: worker: --queue must be .*: not a URL/);
    await refused(['worker'], /^error CLI_USAGE: worker: --queue <redis url> is required/);
    await refused(['worker', '--queue', redis.url(), '--lock-duration', '5'], /^error CLI_USAGE: worker: --lock-duration must be a duration/);
  });
});
