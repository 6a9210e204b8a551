/**
 * Durations mean one thing everywhere: written with their unit (`500ms`, `90s`, `5m`). A bare number in
 * a run file or in a strategy's params is refused, located at the field, with a message that suggests
 * `<n>s` or `<n>ms`; `0` alone is accepted where no time is a valid value (latencies, fault times).
 */
import { describe, expect, it } from 'vitest';
import { formatConfigIssue } from '../../src/config/config-issue.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { runConfigSchema } from '../../src/config/run-config.ts';
import { parseYamlSource } from '../../src/config/yaml-source.ts';
import { validateStrategyParams } from '../../src/strategy/load-strategy.ts';
import twap from '../../strategies/twap.ts';

const HEAD = `network: sim
wallet: { ephemeral: true }
markets: [MON_USDC]
risk: { maxPosition: "100", maxOrderSize: "10", maxNotional: "500" }
strategies:
  - name: t
    module: strategies/twap.ts
    markets: [MON_USDC]
`;

function issues(text: string): string[] {
  const result = parseConfig(text, runConfigSchema, { file: 'run.yaml', env: {} });
  return result.ok ? [] : result.issues.map(formatConfigIssue);
}

describe('a bare number where a duration belongs is refused, located, with a unit suggested', () => {
  it('the run duration and a strategy idleTimeout', () => {
    expect(issues(`${HEAD}    idleTimeout: 30\nduration: 90\n`)).toEqual([
      'run.yaml:9:18 strategies[0].idleTimeout: expected a duration with a unit, 30s or 30ms: a bare number is ambiguous',
      'run.yaml:10:11 duration: expected a duration with a unit, 90s or 90ms: a bare number is ambiguous',
    ]);
    expect(issues(`${HEAD}    idleTimeout: 30s\nduration: 1500ms\n`)).toEqual([]);
  });

  it('virtual latencies and fault times', () => {
    const text = `${HEAD}virtual:\n  latency: { relay: 20, marketData: { uniform: [5, 40ms] }, userData: 0 }\n  faults:\n    - { at: 12400, fault: { action: drop-connections } }\n    - { at: 0, fault: { action: drop-connections } }\n`;
    expect(issues(text)).toEqual([
      'run.yaml:10:21 virtual.latency.relay: expected a duration with a unit, 20s or 20ms: a bare number is ambiguous',
      'run.yaml:10:49 virtual.latency.marketData.uniform[0]: expected a duration with a unit, 5s or 5ms: a bare number is ambiguous',
      'run.yaml:12:13 virtual.faults[0].at: expected a duration with a unit, 12400s or 12400ms: a bare number is ambiguous',
    ]);
  });

  it('a strategy param that is a duration (twap duration), located in the run file', () => {
    const source = parseYamlSource(`${HEAD}    params: { side: buy, quantity: "10", duration: 60, slices: 3 }\n`, { file: 'run.yaml', env: {} });
    if (!source.ok) throw new Error('unparsable');
    const result = validateStrategyParams(twap, source.source, 0);
    expect(result.ok ? [] : result.issues.map(formatConfigIssue)).toEqual([
      'run.yaml:9:52 strategies[0].params.duration: expected a duration with a unit, 60s or 60ms: a bare number is ambiguous',
    ]);
    const fine = parseYamlSource(`${HEAD}    params: { side: buy, quantity: "10", duration: 60s, slices: 3 }\n`, { file: 'run.yaml', env: {} });
    if (!fine.ok) throw new Error('unparsable');
    expect(validateStrategyParams(twap, fine.source, 0)).toMatchObject({ ok: true, value: { duration: 60_000 } });
  });
});

