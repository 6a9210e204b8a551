/** The Binance capture fixtures (test/fixtures/binance-capture) as lines, and damaged copies of them. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const fixtures = new URL('../fixtures/binance-capture/', import.meta.url);

/** The path of a fixture file. */
export function capturePath(name: string): string {
  return fileURLToPath(new URL(name, fixtures));
}

/** The lines of a gzipped fixture, without the empty one after the last newline. */
export function captureLines(name: string): string[] {
  return gunzipSync(readFileSync(capturePath(name))).toString('utf8').split('\n').filter((line) => line.length > 0);
}

/** Writes `lines` gzipped to `dir/name`; returns its path. */
export function writeGzipLines(dir: string, name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, gzipSync(`${lines.join('\n')}\n`));
  return path;
}

/** The local receive time of a capture line. */
export function localOf(line: string): bigint {
  return BigInt(line.slice(0, line.indexOf(' ')));
}

/** The JSON of a capture line. */
export function jsonOf(line: string): Record<string, unknown> {
  return JSON.parse(line.slice(line.indexOf(' ') + 1)) as Record<string, unknown>;
}

/** True for a `@depth@100ms` line. */
export function isDepthLine(line: string): boolean {
  return line.includes('"stream":"btcusdt@depth@100ms"');
}

/**
 * The first two minutes of the capture as they were recorded, less most bookTickers: the 2-minute
 * extract (which leaves the REST snapshot out) with the snapshot line put back at its local time.
 */
export function twoMinuteCapture(): string[] {
  const lines = captureLines('btcusdt_20240808_2min.txt.gz');
  const [snapshot] = captureLines('btcusdt_depth_snapshot_20240808.txt.gz');
  const at = lines.findIndex((line) => localOf(line) > localOf(snapshot!));
  lines.splice(at, 0, snapshot!);
  return lines;
}
