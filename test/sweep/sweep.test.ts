/**
 * `clobbot sweep` as a user runs it, on a minute of the local venue recorded on virtual time: a 2×2
 * grid of the reference market maker's params in two worker threads gives the same results bytes as
 * in one thread and as a repeat (which runs nothing); an interrupted sweep runs only what is missing;
 * a failing combination is a failed row, not a crash; bad input is refused before any run.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, workspace, type Workspace } from '../cli/run-harness.ts';

let ws: Workspace;
let feed: string;

const GRID = ['--param', 'spreadBps=4,8', '--param', 'size=1000..2000:1000'];
const OUTPUTS = ['results.csv', 'results.json', 'sweep.html'];

beforeAll(async () => {
  ws = workspace();
  const recorded = await runCli(['record', '--symbol', 'MON_USDC', '--out', join(ws.dir, 'rec'), '--virtual', '--duration', '1m']);
  expect(recorded.code, recorded.stderr).toBe(0);
  feed = join(ws.dir, 'rec', readdirSync(join(ws.dir, 'rec'))[0]!);
}, 60_000);
afterAll(() => ws.remove());

const sweep = (out: string, args: readonly string[]) => runCli(['sweep', 'config/market-maker.yaml', '--feed', feed, ...args, '--out', join(ws.dir, out)]);
const bytes = (out: string, name: string) => readFileSync(join(ws.dir, out, name));
/** `sweep: 4 runs, 2 run now, 2 reused, 0 failed`. */
const counts = (stdout: string) => /sweep: (\d+) runs, (\d+) run now, (\d+) reused, (\d+) failed/.exec(stdout)!.slice(1).map(Number);

interface Results {
  readonly metric: { readonly name: string };
  readonly params: readonly { readonly name: string; readonly values: readonly string[] }[];
  readonly runs: readonly { readonly rank: number | null; readonly hash: string; readonly params: Record<string, string>; readonly status: string; readonly metrics: Record<string, string | number | null>; readonly error: { code: string | null } | null }[];
}

describe('clobbot sweep', () => {
  it('runs a 2×2 grid in two threads: ranked results, a run directory each, the heatmap data; the same bytes in one thread and on a repeat', async () => {
    const two = await sweep('two', [...GRID, '--workers', '2']);
    expect(two.code, two.stderr + two.stdout).toBe(0);
    expect(counts(two.stdout)).toEqual([4, 4, 0, 0]);
    expect(readdirSync(join(ws.dir, 'two')).sort()).toEqual([...OUTPUTS, 'runs'].sort());

    const results = JSON.parse(bytes('two', 'results.json').toString()) as Results;
    expect(results.metric.name).toBe('netPnl');
    expect(results.runs.map((run) => run.rank)).toEqual([1, 2, 3, 4]);
    expect(results.runs.map((run) => `${run.params['spreadBps']}/${run.params['size']}`).sort()).toEqual(['4/1000', '4/2000', '8/1000', '8/2000']);
    const pnl = results.runs.map((run) => new Decimal(String(run.metrics['netPnl'])));
    for (let i = 1; i < pnl.length; i += 1) expect(pnl[i - 1]!.gte(pnl[i]!)).toBe(true);
    expect(results.runs.some((run) => run.metrics['fills'] !== 0)).toBe(true);
    for (const run of results.runs) expect(readdirSync(join(ws.dir, 'two', 'runs', run.hash)).sort()).toEqual(['manifest.json', 'run.yaml', 'summary.json']);

    const csv = bytes('two', 'results.csv').toString().trim().split('\n');
    expect(csv[0]).toMatch(/^rank,spreadBps,size,feed,seed,hash,status,stop,error_code,error_message,netPnl,/);
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(['1', '2', '3', '4']);
    expect(csv[1]).toContain(results.runs[0]!.hash);

    const html = bytes('two', 'sweep.html').toString();
    const data = JSON.parse(/<script type="application\/json" id="sweep-data">(.*?)<\/script>/s.exec(html)![1]!) as { metric: string; params: Results['params']; runs: Results['runs'] };
    expect(data.metric).toBe('netPnl');
    expect(data.params).toEqual([{ name: 'spreadBps', values: ['4', '8'] }, { name: 'size', values: ['1000', '2000'] }]);
    expect(data.runs.map((run) => [run.params['spreadBps'], run.params['size'], run.metrics['netPnl']])).toEqual(results.runs.map((run) => [run.params['spreadBps'], run.params['size'], run.metrics['netPnl']]));
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/);

    const one = await sweep('one', [...GRID, '--workers', '1']);
    expect(one.code, one.stderr).toBe(0);
    for (const name of OUTPUTS) expect(bytes('one', name).equals(bytes('two', name)), name).toBe(true);
    for (const run of results.runs) expect(bytes('one', `runs/${run.hash}/summary.json`).equals(bytes('two', `runs/${run.hash}/summary.json`))).toBe(true);

    const repeat = await sweep('two', [...GRID, '--workers', '2']);
    expect(repeat.code).toBe(0);
    expect(counts(repeat.stdout)).toEqual([4, 0, 4, 0]);
    for (const name of OUTPUTS) expect(bytes('two', name).equals(bytes('one', name)), name).toBe(true);

    // Interrupted: one run's directory gone, another's summary never written. Only those two run again.
    const [gone, half] = results.runs;
    rmSync(join(ws.dir, 'one', 'runs', gone!.hash), { recursive: true });
    rmSync(join(ws.dir, 'one', 'runs', half!.hash, 'summary.json'));
    const resumed = await sweep('one', [...GRID, '--workers', '2']);
    expect(resumed.code).toBe(0);
    expect(counts(resumed.stdout)).toEqual([4, 2, 2, 0]);
    for (const name of OUTPUTS) expect(bytes('one', name).equals(bytes('two', name)), name).toBe(true);
  }, 120_000);

  it('records a failing combination as failed with its code, ranks the others, and exits 1', async () => {
    // 0.0001 MON passes the params schema but is below the market's smallest order: the strategy fails.
    const result = await sweep('failing', ['--param', 'size=0.0001,1000', '--workers', '2', '--to', '2026-01-01T00:00:30Z']);
    expect(result.code, result.stderr + result.stdout).toBe(1);
    expect(counts(result.stdout)).toEqual([2, 2, 0, 1]);
    const results = JSON.parse(bytes('failing', 'results.json').toString()) as Results;
    expect(results.runs.map((run) => [run.params['size'], run.rank, run.status, run.error?.code ?? null])).toEqual([
      ['1000', 1, 'ok', null],
      ['0.0001', null, 'failed', 'STRATEGY_FAILED'],
    ]);
    expect(bytes('failing', 'results.csv').toString()).toMatch(/\n,0\.0001,.*,failed,failed,STRATEGY_FAILED,strategy mm failed \(STRATEGY_FAILED\),/);
  }, 60_000);

  it('refuses bad input before any run, with exit 2 and no stack trace', async () => {
    const refused = async (args: readonly string[], pattern: RegExp) => {
      const result = await sweep('refused', args);
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toMatch(pattern);
      expect(hasStackTrace(result.stderr)).toBe(false);
      expect(existsSync(join(ws.dir, 'refused'))).toBe(false);
    };
    await refused(['--param', 'mm.spredBps=4'], /^error SWEEP_PARAM_INVALID: sweep: --param mm\.spredBps: config\/market-maker\.yaml has no field strategies\[0\]\.params\.spredBps/);
    await refused(['--param', 'spreadBps=4,99999'], /^error SWEEP_PARAM_INVALID: .*\(spreadBps=99999\):\n {2}spreadBps=99999: strategies\[0\]\.params\.spreadBps: expected a number <= 5000/);
    await refused(['--param', 'risk.maxPosition=0'], /^error SWEEP_PARAM_INVALID: [^]*risk\.maxPosition=0: risk\.maxPosition: expected an amount above zero/);
    await refused(['--param', 'size=5000..1000:1000'], /^error CLI_USAGE: sweep: --param size: the range 5000\.\.1000:1000 is empty/);
    await refused(['--param', 'size=1000..2000'], /^error CLI_USAGE: sweep: --param size: the range 1000\.\.2000 needs a step/);
    await refused(['--metric', 'profit'], /^error CLI_USAGE: sweep: --metric "profit" is not a metric \(one of netPnl,/);
    await refused(['--workers', '0'], /^error CLI_USAGE: sweep: --workers must be a whole number/);
    await refused(['--queue-model', 'fifo'], /^error CLI_USAGE: sweep: --queue-model must be risk-averse, probabilistic or probabilistic:<power>/);
  });

  it('runs with the queue model it is given: in each run\'s manifest and hash', async () => {
    const result = await sweep('risk-averse', ['--param', 'spreadBps=4', '--queue-model', 'risk-averse', '--workers', '1', '--to', '2026-01-01T00:00:20Z']);
    expect(result.code, result.stderr).toBe(0);
    const [run] = (JSON.parse(bytes('risk-averse', 'results.json').toString()) as Results).runs;
    const manifest = JSON.parse(readFileSync(join(ws.dir, 'risk-averse', 'runs', run!.hash, 'manifest.json'), 'utf8')) as { queueModel: { name: string } };
    expect(manifest.queueModel.name).toBe('risk-averse');
    const probabilistic = await sweep('probabilistic', ['--param', 'spreadBps=4', '--workers', '1', '--to', '2026-01-01T00:00:20Z']);
    expect(probabilistic.code, probabilistic.stderr).toBe(0);
    expect((JSON.parse(bytes('probabilistic', 'results.json').toString()) as Results).runs[0]!.hash).not.toBe(run!.hash);
  }, 60_000);
});
