/**
 * The parts of a sweep that need no backtest: param values (lists, exact decimal ranges, mistakes),
 * param names resolved against a run file, metrics, a combination's run file and its checks, and the
 * ranking of results.
 */
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { z } from 'zod';
import { defineStrategy } from '../../src/strategy/define-strategy.ts';
import { checkCombination } from '../../src/sweep/check-combination.ts';
import { parseParamValues } from '../../src/sweep/param-values.ts';
import { overrideRunFile } from '../../src/sweep/run-file-override.ts';
import { compareMetric, metricValues, sweepMetric } from '../../src/sweep/sweep-metrics.ts';
import { parseSweepParam, resolveSweepParam } from '../../src/sweep/sweep-param.ts';
import { rankSweepResults } from '../../src/sweep/sweep-results.ts';
import type { SweepPlan } from '../../src/sweep/plan-sweep.ts';
import { NEVER } from 'rxjs';

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a BaseError');
}

describe('param values', () => {
  it('reads lists, ranges and both', () => {
    expect(parseParamValues('--param spreadBps', '4,6,8')).toEqual(['4', '6', '8']);
    expect(parseParamValues('--param size', '1000..5000:1000')).toEqual(['1000', '2000', '3000', '4000', '5000']);
    expect(parseParamValues('--param spreadBps', '2, 4..8:2 ,12')).toEqual(['2', '4', '6', '8', '12']);
    expect(parseParamValues('--param priceSource', 'mid,microprice')).toEqual(['mid', 'microprice']);
    // The last value not past `to`.
    expect(parseParamValues('--param levels', '1..10:4')).toEqual(['1', '5', '9']);
    expect(parseParamValues('--param skew', '-2..2:2')).toEqual(['-2', '0', '2']);
  });

  it('makes decimal ranges exactly, with no float drift, each value in its shortest form', () => {
    expect(parseParamValues('--param rate', '0.1..0.3:0.1')).toEqual(['0.1', '0.2', '0.3']);
    expect(parseParamValues('--param size', '0.7..1:0.1')).toEqual(['0.7', '0.8', '0.9', '1']);
    expect(parseParamValues('--param size', '1.50..2.5:0.25')).toEqual(['1.5', '1.75', '2', '2.25', '2.5']);
    expect(parseParamValues('--param x', '0.000000001..0.000000003:0.000000001')).toEqual(['0.000000001', '0.000000002', '0.000000003']);
    expect(parseParamValues('--param big', '9007199254740993..9007199254740995:1')).toEqual(['9007199254740993', '9007199254740994', '9007199254740995']);
  });

  it('refuses bad syntax, empty ranges and repeated values with CLI_USAGE naming the param', () => {
    for (const [text, pattern] of [
      ['5..1:1', /--param size: the range 5\.\.1:1 is empty/],
      ['1..5', /the range 1\.\.5 needs a step/],
      ['1..5:0', /the step of 1\.\.5:0 must be above zero/],
      ['1..5:-1', /the step of 1\.\.5:-1 must be above zero/],
      ['1...5:1', /is not a range/],
      ['a..b:1', /is not a range/],
      ['1,,2', /an empty value/],
      ['1,2,', /an empty value/],
      ['', /an empty value/],
      ['2,1..3:1', /the value 2 is given twice/],
      ['0..1:0.00001', /has 100001 values \(at most 10000\)/],
    ] as const) {
      expect(thrown(() => parseParamValues('--param size', text)), text).toMatchObject({ code: 'CLI_USAGE', message: expect.stringMatching(pattern) });
    }
  });

  it('reads --param name=values and refuses what is not', () => {
    expect(parseSweepParam('mm.spreadBps=4,8')).toEqual({ name: 'mm.spreadBps', values: ['4', '8'] });
    expect(thrown(() => parseSweepParam('spreadBps'))).toMatchObject({ code: 'CLI_USAGE', message: expect.stringMatching(/expected <name>=<values>/) });
    expect(thrown(() => parseSweepParam('mm..x=1'))).toMatchObject({ code: 'CLI_USAGE', message: expect.stringMatching(/is not a param name/) });
  });
});

describe('param names', () => {
  const one = { file: 'one.yaml', data: { strategies: [{ name: 'mm' }], risk: {} } };
  const two = { file: 'two.yaml', data: { strategies: [{ name: 'mm' }, { name: 'grid' }], risk: {} } };
  const param = (name: string) => ({ name, values: ['1'] });

  it('resolves a bare name, a strategy param and a run file field', () => {
    expect(resolveSweepParam(param('spreadBps'), one).path).toEqual(['strategies', 0, 'params', 'spreadBps']);
    expect(resolveSweepParam(param('grid.stepBps'), two).path).toEqual(['strategies', 1, 'params', 'stepBps']);
    expect(resolveSweepParam(param('risk.maxPosition'), two).path).toEqual(['risk', 'maxPosition']);
    expect(resolveSweepParam(param('markets.0'), two).path).toEqual(['markets', 0]);
  });

  it('refuses a bare name when the run file has several strategies, naming them', () => {
    expect(thrown(() => resolveSweepParam(param('spreadBps'), two))).toMatchObject({ code: 'SWEEP_PARAM_INVALID', message: expect.stringMatching(/two\.yaml has 2 \(mm, grid\): write <strategy>\.spreadBps/) });
  });
});

describe('metrics', () => {
  it('knows its names, refuses others, and compares decimals exactly (null last)', () => {
    expect(thrown(() => sweepMetric('pnl'))).toMatchObject({ code: 'CLI_USAGE', message: expect.stringMatching(/--metric "pnl" is not a metric \(one of netPnl, realizedPnl, sharpe/) });
    const net = sweepMetric('netPnl');
    expect(compareMetric(net, '0.30000000000000001', '0.3')).toBeLessThan(0);
    expect(compareMetric(net, '-1', null)).toBeLessThan(0);
    expect(compareMetric(sweepMetric('maxDrawdown'), '1', '2')).toBeLessThan(0);
    expect(metricValues({ pnl: { net: '1.5' }, returns: { sharpe: null }, fills: 3 })).toMatchObject({ netPnl: '1.5', sharpe: null, fills: 3, volume: null });
  });

  it('ranks ok runs by the metric, ties in the plan order, failed runs last', () => {
    const run = (hash: string, value: string) => ({ job: { hash, runFile: { path: 'a.yaml', text: '' }, feed: { path: 'f', sha256: 'x' }, seed: 1 }, params: [['spreadBps', value]] as const });
    const plan: SweepPlan = { runFile: { path: 'a.yaml', sha256: 'x' }, params: [], feeds: [], seeds: [1], code: { version: null, commit: null }, runs: ['a', 'b', 'c', 'd', 'e'].map((hash, i) => run(hash, String(i))) };
    const ok = (net: string, stop: Record<string, unknown> = { kind: 'duration' }) => ({ status: 'ok' as const, result: { summary: { pnl: { net }, stop }, manifest: {} } });
    const results = rankSweepResults(
      plan,
      [ok('1'), { status: 'failed', error: { code: 'FEED_NOT_FOUND', message: 'gone' } }, ok('2.5'), ok('1'), ok('9', { kind: 'failed', code: 'STRATEGY_FAILED', description: 'strategy mm failed (STRATEGY_FAILED)' })],
      sweepMetric('netPnl'),
    );
    expect(results.runs.map((row) => [row.hash, row.rank, row.status])).toEqual([
      ['c', 1, 'ok'],
      ['a', 2, 'ok'],
      ['d', 3, 'ok'],
      ['b', null, 'failed'],
      ['e', null, 'failed'],
    ]);
    expect(results.runs[4]!.error).toEqual({ code: 'STRATEGY_FAILED', message: 'strategy mm failed (STRATEGY_FAILED)' });
  });
});

describe("a combination's run file", () => {
  const text = ['network: sim', 'wallet: { ephemeral: true }', 'markets: [MON_USDC]', 'strategies:', '  - name: mm', '    module: m.ts', '    markets: [MON_USDC]', '    params:', '      spreadBps: 8   # why', '      size: "2000"', 'risk: { maxPosition: "1", maxOrderSize: "1", maxNotional: "1" }', ''].join('\n');
  const definition = defineStrategy({ name: 't', params: z.strictObject({ spreadBps: z.number().max(100), size: z.string(), skew: z.number().default(0) }), create: () => NEVER });
  const at = (name: string, path: (string | number)[], value: string) => ({ name, path, value });

  it('sets each value with the type of the one it replaces, keeping comments', () => {
    const combined = overrideRunFile(text, [at('spreadBps', ['strategies', 0, 'params', 'spreadBps'], '4'), at('size', ['strategies', 0, 'params', 'size'], '1000'), at('skew', ['strategies', 0, 'params', 'skew'], '2.5')]);
    expect(combined).toContain('spreadBps: 4 # why');
    expect(combined).toContain('size: "1000"');
    expect(combined).toContain('skew: 2.5');
  });

  it('passes a valid combination, and refuses an unknown field or a bad value naming the param and value', () => {
    const check = (overrides: ReturnType<typeof at>[]) => () => checkCombination({ file: 'a.yaml', text: overrideRunFile(text, overrides), overrides, strategies: [definition], env: {} });
    expect(check([at('spreadBps', ['strategies', 0, 'params', 'spreadBps'], '50')])).not.toThrow();
    expect(thrown(check([at('spreadBps', ['strategies', 0, 'params', 'spreadBps'], '500')]))).toMatchObject({
      code: 'SWEEP_PARAM_INVALID',
      message: expect.stringMatching(/a combination of a\.yaml is invalid \(spreadBps=500\):\n {2}spreadBps=500: strategies\[0\]\.params\.spreadBps: /),
    });
    expect(thrown(check([at('mm.spredBps', ['strategies', 0, 'params', 'spredBps'], '5')]))).toMatchObject({ code: 'SWEEP_PARAM_INVALID', message: expect.stringMatching(/--param mm\.spredBps: a\.yaml has no field strategies\[0\]\.params\.spredBps/) });
    expect(thrown(check([at('risk.maxPositon', ['risk', 'maxPositon'], '5')]))).toMatchObject({ code: 'SWEEP_PARAM_INVALID', message: expect.stringMatching(/--param risk\.maxPositon: a\.yaml has no field risk\.maxPositon/) });
    expect(thrown(check([at('risk.maxPosition', ['risk', 'maxPosition'], '-1')]))).toMatchObject({ code: 'SWEEP_PARAM_INVALID', message: expect.stringMatching(/risk\.maxPosition=-1: risk\.maxPosition: /) });
    expect(thrown(() => overrideRunFile(text, [at('network.x', ['network', 'x'], '1')]))).toMatchObject({ code: 'SWEEP_PARAM_INVALID', message: expect.stringMatching(/no field network\.x/) });
  });
});
