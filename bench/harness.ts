/**
 * A tiny benchmark harness: each benchmark runs `runs` times after a warm-up, and the median
 * rate is printed. Benchmarks are plain measuring scripts: their figures never gate a test.
 */
import { performance } from 'node:perf_hooks';

export interface Benchmark {
  /** What is measured, e.g. "matching: place/cancel/match mix". */
  readonly name: string;
  /** The unit of one operation, e.g. "orders", "signatures", "requests". */
  readonly unit: string;
  /** Does the work once and returns how many operations it did. */
  run(): number | Promise<number>;
  /** Runs before the timed runs (default: one untimed run). */
  warmup?(): void | Promise<void>;
  /** Timed runs (default 7): fewer for a benchmark whose one run takes seconds. */
  readonly runs?: number;
}

export interface BenchResult {
  readonly name: string;
  readonly unit: string;
  readonly medianOpsPerSecond: number;
  readonly medianMsPerOp: number;
  readonly runs: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function measure(benchmark: Benchmark, runs = benchmark.runs ?? 7): Promise<BenchResult> {
  if (benchmark.warmup) await benchmark.warmup();
  else await benchmark.run();
  const rates: number[] = [];
  const msPerOp: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const ops = await benchmark.run();
    const elapsed = performance.now() - started;
    rates.push((ops / elapsed) * 1000);
    msPerOp.push(elapsed / ops);
  }
  return { name: benchmark.name, unit: benchmark.unit, medianOpsPerSecond: median(rates), medianMsPerOp: median(msPerOp), runs };
}

export function formatResult(result: BenchResult): string {
  const rate = Math.round(result.medianOpsPerSecond).toLocaleString('en-US');
  const latency = result.medianMsPerOp < 1 ? `${(result.medianMsPerOp * 1000).toFixed(2)} µs` : `${result.medianMsPerOp.toFixed(3)} ms`;
  return `${result.name.padEnd(56)} ${rate.padStart(14)} ${result.unit}/s   ${latency.padStart(11)}/${result.unit.replace(/s$/, '')}   (median of ${result.runs})`;
}
