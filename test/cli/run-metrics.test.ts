/**
 * The Prometheus endpoint of `clobbot run` (`metrics.port`): its HTTP face, the run's metrics on a
 * prom-client registry of its own, and scrapes of a running bot over loopback.
 */
import { createServer } from 'node:net';
import { Gauge, register as globalRegistry, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { startMetricsServer } from '../../src/cli/run/metrics-server.ts';
import { createRunMetrics, type RunMetricsInput } from '../../src/cli/run/run-metrics.ts';
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

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A text exposition (format 0.0.4) read back: the TYPE of each family and every sample. */
function parseExposition(text: string): { readonly types: ReadonlyMap<string, string>; readonly samples: readonly Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type !== null) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    const value = sample[3] === '+Inf' ? Infinity : sample[3] === '-Inf' ? -Infinity : Number(sample[3]);
    samples.push({ name: sample[1]!, labels, value });
  }
  return { types, samples };
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
function valueOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

/** The sum over every sample `name` (every label set). */
const sumOf = (samples: readonly Sample[], name: string) => samples.filter((sample) => sample.name === name).reduce((sum, sample) => sum + sample.value, 0);

/** What the run reports when nothing happened yet. */
const quietRun = (): RunMetricsInput => ({
  markets: [],
  stats: { signed: 0, confirmed: 0, reverted: 0, staleSlotReverts: 0, dropped: 0, rejected: 0, refused: 0, superseded: 0, nothingToDo: 0, maxPendingOutcomes: 0, pendingOutcomes: 0, unresolved: 0, queued: 0, reconnects: 0, reconciled: 0 },
  timings: new Map(),
  strategies: [],
});

describe('the metrics endpoint', () => {
  it('answers GET and HEAD /metrics in the registry’s content type on 127.0.0.1, 404 elsewhere, 405 to other methods', async () => {
    const registry = new Registry();
    new Gauge({ name: 'x', help: 'X.', registers: [registry] }).set(1);
    const server = await startMetricsServer({ port: 0, registry });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
      const ok = await fetch(server.url);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe(registry.contentType);
      expect(await ok.text()).toBe('# HELP x X.\n# TYPE x gauge\nx 1\n');
      const head = await fetch(server.url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      const post = await fetch(server.url, { method: 'POST', body: 'x' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await server.close();
    }
  });

  it('answers 500 while a metric cannot be collected, and serves again once it can', async () => {
    const registry = new Registry();
    let broken = true;
    new Gauge({
      name: 'flaky',
      help: 'Fails while broken.',
      registers: [registry],
      collect() {
        if (broken) throw new Error('no figures');
        this.set(2);
      },
    });
    const server = await startMetricsServer({ port: 0, registry });
    try {
      const failed = await fetch(server.url);
      expect(failed.status).toBe(500);
      expect(await failed.text()).toBe('metrics collection failed\n');
      broken = false;
      expect(await (await fetch(server.url)).text()).toContain('\nflaky 2\n');
    } finally {
      await server.close();
    }
  });

  it('refuses a port in use (METRICS_LISTEN_FAILED)', async () => {
    const server = await startMetricsServer({ port: 0, registry: new Registry() });
    try {
      await expect(startMetricsServer({ port: server.port, registry: new Registry() })).rejects.toMatchObject({ code: 'METRICS_LISTEN_FAILED' });
    } finally {
      await server.close();
    }
  });
});

describe('the run’s metrics', () => {
  it('live on a registry of each run’s own, with the process and Node metrics, never on the global one', async () => {
    const first = createRunMetrics();
    const second = createRunMetrics();
    first.observePoll('depth', 4);
    const one = parseExposition(await first.registry.metrics());
    const other = parseExposition(await second.registry.metrics());
    expect(valueOf(one.samples, 'clobbot_poll_seconds_count', { endpoint: 'depth' })).toBe(1);
    expect(valueOf(other.samples, 'clobbot_poll_seconds_count', { endpoint: 'depth' })).toBeUndefined();
    for (const { types } of [one, other]) {
      expect(types.get('process_cpu_user_seconds_total')).toBe('counter');
      expect(types.get('process_resident_memory_bytes')).toBe('gauge');
      expect(types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
      expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    }
    expect(globalRegistry.getSingleMetric('clobbot_poll_seconds')).toBeUndefined();
    expect(globalRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
  });

  it('files an intent’s time under its fate and a poll’s under its endpoint, in seconds', async () => {
    const metrics = createRunMetrics();
    metrics.observeIntent({ status: 'CONFIRMED', requestId: 'r1', txHash: '0xab' }, 1_500);
    metrics.observeIntent({ status: 'REFUSED', code: 'RISK_MAX_ORDER_SIZE', message: 'too big' }, 0);
    metrics.observePoll('orderEvents', 30);
    const { types, samples } = parseExposition(await metrics.registry.metrics());
    expect(types.get('clobbot_intent_outcome_seconds')).toBe('histogram');
    expect(types.get('clobbot_poll_seconds')).toBe('histogram');
    const confirmed = { status: 'confirmed' };
    expect(valueOf(samples, 'clobbot_intent_outcome_seconds_bucket', { ...confirmed, le: '1' })).toBe(0);
    expect(valueOf(samples, 'clobbot_intent_outcome_seconds_bucket', { ...confirmed, le: '2' })).toBe(1);
    expect(valueOf(samples, 'clobbot_intent_outcome_seconds_sum', confirmed)).toBe(1.5);
    expect(valueOf(samples, 'clobbot_intent_outcome_seconds_count', { status: 'refused' })).toBe(1);
    expect(valueOf(samples, 'clobbot_poll_seconds_bucket', { endpoint: 'orderEvents', le: '0.025' })).toBe(0);
    expect(valueOf(samples, 'clobbot_poll_seconds_bucket', { endpoint: 'orderEvents', le: '0.05' })).toBe(1);
  });

  it('reads the run’s state once per scrape, whatever the number of families', async () => {
    const metrics = createRunMetrics();
    let reads = 0;
    metrics.follow(() => {
      reads += 1;
      return quietRun();
    });
    await metrics.registry.metrics();
    expect(reads).toBe(1);
    await metrics.registry.metrics();
    expect(reads).toBe(2);
  });
});

/** A strategy that reads the tape (trades and ticker) and never trades: the run then polls them. */
const TAPE_READER = `
import { ignoreElements, merge } from 'rxjs';
import { defineStrategy, z } from 'clobbot';
export default defineStrategy({
  name: 'tape-reader',
  params: z.strictObject({}),
  create: (ctx) => {
    const market = [...ctx.markets.values()][0];
    return merge(market.feed.trades$, market.feed.ticker$).pipe(ignoreElements());
  },
});
`;

/** Every family a run served before prom-client, with its type: kept as it was. */
const RUN_FAMILIES: Readonly<Record<string, 'counter' | 'gauge'>> = {
  clobbot_orders_placed_total: 'counter',
  clobbot_orders_cancelled_total: 'counter',
  clobbot_orders_open: 'gauge',
  clobbot_fills_total: 'counter',
  clobbot_volume_base_total: 'counter',
  clobbot_volume_quote_total: 'counter',
  clobbot_fees_quote_total: 'counter',
  clobbot_position_base: 'gauge',
  clobbot_pnl_realized_quote: 'gauge',
  clobbot_pnl_unrealized_quote: 'gauge',
  clobbot_pnl_net_quote: 'gauge',
  clobbot_mid_price: 'gauge',
  clobbot_pending_requests: 'gauge',
  clobbot_pending_outcomes_max: 'gauge',
  clobbot_intents_total: 'counter',
  clobbot_stale_slot_reverts_total: 'counter',
  clobbot_relay_reconnects_total: 'counter',
  clobbot_market_data_requests_total: 'counter',
  clobbot_market_data_errors_total: 'counter',
  clobbot_market_data_poll_seconds_sum: 'counter',
  clobbot_market_data_poll_seconds_last: 'gauge',
  clobbot_strategy_intents_total: 'counter',
  clobbot_strategy_errors_total: 'counter',
};

describe('clobbot run with metrics.port', () => {
  it('serves the run’s figures, the process and Node metrics, and the intent and poll histograms while it runs', async () => {
    ws = workspace();
    const port = await freePort();
    const tape = ws.strategy('tape-reader.ts', TAPE_READER);
    const file = ws.runFile('metrics.yaml', [
      ...runLines({ simConfig: ws.simConfig(), duration: '30s', extra: [`metrics: { port: ${port} }`] }),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 3, size: "500", maxInventory: "50000" } }',
      `  - { name: tape, module: ${tape}, markets: [MON_USDC], idleTimeout: off }`,
    ]);
    const out = watchedIo();
    const stop = new AbortController();
    const running = runCommandMain([file], out.io, { stop: stop.signal, statusEveryMs: 100 });
    const url = `http://127.0.0.1:${port}/metrics`;
    let scraped = parseExposition('');
    try {
      // A status record with an order placed: the run got that far (and read depth before it quoted).
      await out.until(({ stderr }) => statusRecords(stderr).some((status) => status.markets.some((market) => market.placed >= 1)), 'an order was placed', running);
      expect(out.stdout()).toContain(`  metrics     ${url}\n`);
      // The tape and the order events are polled on their own schedules: scraped until each was.
      const polled = (endpoint: string) => (valueOf(scraped.samples, 'clobbot_poll_seconds_count', { endpoint }) ?? 0) > 0;
      for (let scrapes = 1; ; scrapes += 1) {
        scraped = parseExposition(await (await fetch(url)).text());
        if (polled('trades') && polled('ticker') && polled('orderEvents')) break;
        if (scrapes === 100) throw new Error(`not every poll was observed after ${scrapes} scrapes`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await fetch(url.replace('/metrics', '/status'))).status).toBe(404);
      expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
    } finally {
      stop.abort();
    }
    expect(await running, out.stderr().slice(-2000)).toBe(0);
    const { types, samples } = scraped;

    // prom-client's process and Node runtime metrics (the event-loop lag is measured after a scrape: no value asserted).
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(valueOf(samples, name), name).toBeGreaterThan(0);
    }
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_active_handles', 'nodejs_gc_duration_seconds', 'nodejs_version_info']) expect(types.has(name), name).toBe(true);
    // Every family of before, with its type.
    for (const [name, type] of Object.entries(RUN_FAMILIES)) expect(types.get(name), name).toBe(type);
    expect(valueOf(samples, 'clobbot_orders_placed_total', { market: 'MON_USDC' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'clobbot_market_data_poll_seconds_last', { endpoint: 'depth' })).toBeGreaterThanOrEqual(0);

    // Each strategy intent settled is filed under its fate: as many confirmed and reverted as the
    // engine counted (the scrape reads both at one moment; the engine sends nothing of its own mid-run).
    expect(types.get('clobbot_intent_outcome_seconds')).toBe('histogram');
    for (const status of ['confirmed', 'reverted']) {
      expect(valueOf(samples, 'clobbot_intent_outcome_seconds_count', { status }) ?? 0, status).toBe(valueOf(samples, 'clobbot_intents_total', { status }));
    }
    expect(valueOf(samples, 'clobbot_intent_outcome_seconds_count', { status: 'confirmed' })).toBeGreaterThanOrEqual(1);
    const settled = sumOf(samples, 'clobbot_intent_outcome_seconds_count');
    expect(settled).toBeLessThanOrEqual(valueOf(samples, 'clobbot_strategy_intents_total', { strategy: 'mm' })!);
    expect(valueOf(samples, 'clobbot_strategy_intents_total', { strategy: 'tape' })).toBe(0);
    expect(sumOf(samples.filter((sample) => sample.labels['le'] === '+Inf'), 'clobbot_intent_outcome_seconds_bucket')).toBe(settled);

    // Every market-data call is one poll observed; the user-data host's polls are there too.
    expect(types.get('clobbot_poll_seconds')).toBe('histogram');
    for (const endpoint of ['depth', 'trades', 'ticker']) {
      expect(valueOf(samples, 'clobbot_poll_seconds_count', { endpoint }), endpoint).toBe(valueOf(samples, 'clobbot_market_data_requests_total', { endpoint }));
      expect(valueOf(samples, 'clobbot_poll_seconds_count', { endpoint }), endpoint).toBeGreaterThanOrEqual(1);
    }
    expect(valueOf(samples, 'clobbot_poll_seconds_count', { endpoint: 'orderEvents' })).toBeGreaterThanOrEqual(1);

    expect(out.stdout()).toMatch(/run summary: [0-9.]+ s, stopped because it was asked to stop/);
    // The endpoint is gone with the run.
    await expect(fetch(url)).rejects.toThrow();
  });

  it('refuses to start on a metrics port in use (METRICS_LISTEN_FAILED)', async () => {
    ws = workspace();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const file = ws.runFile('busy.yaml', [
        ...runLines({ simConfig: ws.simConfig(), duration: '30s', extra: [`metrics: { port: ${port} }`] }),
        'strategies:',
        '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 3, size: "500", maxInventory: "50000" } }',
      ]);
      const out = watchedIo();
      await expect(runCommandMain([file], out.io, { stop: new AbortController().signal })).rejects.toMatchObject({ code: 'METRICS_LISTEN_FAILED' });
      expect(out.stdout()).not.toContain('  metrics     ');
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});
