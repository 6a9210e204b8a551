/**
 * A tiny Prometheus endpoint (text exposition format 0.0.4) over node:http: `GET /metrics` answers
 * the samples `collect` returns at that moment. prom-client is the ecosystem's choice, but the
 * project adds no dependency for a dozen gauges and counters (README, "Dependencies").
 */
import { createServer, type Server } from 'node:http';
import { BaseError } from '../../core/base-error.ts';
import type { Logger } from '../../core/logger.ts';

export type MetricType = 'counter' | 'gauge';

export interface MetricValue {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric family: a name, its help text, its type and its values. */
export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly values: readonly MetricValue[];
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * The text exposition format of `families`.
 *
 * @example
 * formatMetrics([{ name: 'clobbot_fills_total', help: 'Fills.', type: 'counter', values: [{ labels: { market: 'MON_USDC' }, value: 3 }] }])
 * // '# HELP clobbot_fills_total Fills.\n# TYPE clobbot_fills_total counter\nclobbot_fills_total{market="MON_USDC"} 3\n'
 */
export function formatMetrics(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const { labels, value } of family.values) {
      const pairs = Object.entries(labels ?? {}).map(([key, label]) => `${key}="${escapeLabel(label)}"`);
      lines.push(`${family.name}${pairs.length === 0 ? '' : `{${pairs.join(',')}}`} ${formatNumber(value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  /** Closes the endpoint. Idempotent. */
  close(): Promise<void>;
}

export interface StartMetricsServerParameters {
  readonly port: number;
  /** Default 127.0.0.1: the endpoint is for a local scraper (or a tunnel). */
  readonly host?: string;
  readonly collect: () => readonly MetricFamily[];
  readonly logger?: Logger;
}

/**
 * Serves `GET /metrics`. Throws METRICS_LISTEN_FAILED when the port cannot be bound.
 *
 * @example
 * const metrics = await startMetricsServer({ port: 9464, collect: () => families });
 * await metrics.close();
 */
export async function startMetricsServer(params: StartMetricsServerParameters): Promise<MetricsServer> {
  const host = params.host ?? '127.0.0.1';
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    let body: string;
    try {
      body = formatMetrics(params.collect());
    } catch (error) {
      params.logger?.error({ err: error }, 'metrics collection failed');
      response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      reject(
        new BaseError('METRICS_LISTEN_FAILED', `the metrics endpoint cannot listen on ${host}:${params.port}: ${(error as { code?: string }).code ?? error.message}`, {
          details: { host, port: params.port },
          cause: error,
        }),
      );
    };
    server.once('error', onError);
    server.listen(params.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : params.port;
  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://${host}:${port}/metrics`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
