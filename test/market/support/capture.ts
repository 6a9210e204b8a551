/** Reads the recorded Binance capture fixtures (`<local_receive_ns> <json>` lines, gzipped). */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const fixtures = new URL('../../fixtures/binance-capture/', import.meta.url);

/** The JSON of each line of a capture fixture, in file order. */
export function readCapture(name: string): unknown[] {
  const text = gunzipSync(readFileSync(new URL(name, fixtures))).toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line.slice(line.indexOf(' ') + 1)) as unknown);
}

/** The body of the REST depth snapshot (1000 levels a side), exactly as received. */
export function snapshotBody(): string {
  const line = gunzipSync(readFileSync(new URL('btcusdt_depth_snapshot_20240808.txt.gz', fixtures))).toString('utf8').trim();
  return line.slice(line.indexOf(' ') + 1);
}

/** BTCUSDT trades at 0.01 USDT and sizes at 1e-8 BTC (Binance sends 8 decimals for both). */
export const BTCUSDT = { pricePrecision: 100n, sizePrecision: 10n ** 8n } as const;
