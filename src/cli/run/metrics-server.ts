/**
 * The run's Prometheus endpoint over node:http: `GET /metrics` (and HEAD) answers what a prom-client
 * registry collects at that moment, in the registry's content type (text format 0.0.4). The HTTP face
 * is ours (loopback by default, 404 and 405, METRICS_LISTEN_FAILED); the metrics and their format
 * are prom-client's (README, "Dependencies"), registered in run-metrics.ts.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { BaseError } from '../../core/base-error.ts';
import type { Logger } from '../../core/logger.ts';

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
  /** What a scrape answers: the run's own registry, never prom-client's global one. */
  readonly registry: Registry;
  readonly logger?: Logger;
}

/**
 * Serves `GET /metrics`. Throws METRICS_LISTEN_FAILED when the port cannot be bound.
 *
 * @example
 * const metrics = await startMetricsServer({ port: 9464, registry: runMetrics.registry });
 * await metrics.close();
 */
export async function startMetricsServer(params: StartMetricsServerParameters): Promise<MetricsServer> {
  const host = params.host ?? '127.0.0.1';
  const { registry } = params;
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
    registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': registry.contentType }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        params.logger?.error({ err: error }, 'metrics collection failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
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
