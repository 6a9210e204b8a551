/**
 * The Prometheus endpoint of `clobbot run` (`metrics.port`): the text format, and a scrape of a
 * running bot.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { formatMetrics, startMetricsServer } from '../../src/cli/run/metrics-server.ts';
import { runLines, statusRecords, watchedIo, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.remove();
  ws = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('metrics text format', () => {
  it('writes HELP, TYPE and one line per labelled value, escaping label values', () => {
    const text = formatMetrics([
      { name: 'clobbot_fills_total', help: 'Fills.', type: 'counter', values: [{ labels: { market: 'MON_USDC' }, value: 3 }] },
      { name: 'clobbot_odd', help: 'Odd\nhelp.', type: 'gauge', values: [{ labels: { a: 'x"y\\z' }, value: Number.NaN }, { value: -1.5 }] },
    ]);
    expect(text).toBe(
      [
        '# HELP clobbot_fills_total Fills.',
        '# TYPE clobbot_fills_total counter',
        'clobbot_fills_total{market="MON_USDC"} 3',
        '# HELP clobbot_odd Odd\\nhelp.',
        '# TYPE clobbot_odd gauge',
        'clobbot_odd{a="x\\"y\\\\z"} NaN',
        'clobbot_odd -1.5',
        '',
      ].join('\n'),
    );
  });

  it('answers /metrics, 404 elsewhere, and refuses a port in use', async () => {
    const server = await startMetricsServer({ port: 0, collect: () => [{ name: 'x', help: 'X.', type: 'gauge', values: [{ value: 1 }] }] });
    try {
      const ok = await fetch(server.url);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      expect(await ok.text()).toBe('# HELP x X.\n# TYPE x gauge\nx 1\n');
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      await expect(startMetricsServer({ port: server.port, collect: () => [] })).rejects.toMatchObject({ code: 'METRICS_LISTEN_FAILED' });
    } finally {
      await server.close();
    }
  });
});

describe('clobbot run with metrics.port', () => {
  it('serves orders, fills, PnL, inventory, pending outcomes, poll latency and errors while it runs', async () => {
    ws = workspace();
    const port = await freePort();
    const file = ws.runFile('metrics.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '30s', extra: [`metrics: { port: ${port} }`] }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 3, size: "500", maxInventory: "50000" } }',
    ]);
    const out = watchedIo();
    const stop = new AbortController();
    const running = runCommandMain([file], out.io, { stop: stop.signal, statusEveryMs: 100 });
    let text = '';
    try {
      // A status record with an order placed: the run got that far (and read depth before it quoted).
      await out.until(({ stderr }) => statusRecords(stderr).some((status) => status.markets.some((market) => market.placed >= 1)), 'an order was placed', running);
      expect(out.stdout()).toContain(`  metrics     http://127.0.0.1:${port}/metrics\n`);
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    } finally {
      stop.abort();
    }
    expect(await running, out.stderr().slice(-2000)).toBe(0);
    const stdout = out.stdout();
    for (const family of [
      'clobbot_orders_placed_total',
      'clobbot_orders_cancelled_total',
      'clobbot_fills_total',
      'clobbot_position_base',
      'clobbot_pnl_realized_quote',
      'clobbot_pnl_unrealized_quote',
      'clobbot_pending_requests',
      'clobbot_pending_outcomes_max',
      'clobbot_market_data_poll_seconds_sum',
      'clobbot_market_data_errors_total',
      'clobbot_strategy_errors_total',
      'clobbot_stale_slot_reverts_total',
    ]) {
      expect(text).toContain(`# TYPE ${family} `);
    }
    expect(text).toMatch(/clobbot_orders_placed_total\{market="MON_USDC"\} [1-9]/);
    expect(text).toMatch(/clobbot_market_data_requests_total\{endpoint="depth"\} [1-9]/);
    expect(text).toMatch(/clobbot_market_data_poll_seconds_last\{endpoint="depth"\} [0-9.e-]+/);
    expect(stdout).toMatch(/run summary: [0-9.]+ s, stopped because it was asked to stop/);
    // The endpoint is gone with the run.
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
