/**
 * `npm run bench [filter]`: runs every `bench/*.bench.ts` (or those whose file name contains
 * `filter`) and prints the median rate of each benchmark.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatResult, measure, type Benchmark } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(here)
  .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
  .sort();

for (const file of files) {
  const module = (await import(pathToFileURL(join(here, file)).href)) as { benchmarks: readonly Benchmark[]; report?: () => string };
  process.stdout.write(`# ${file}\n`);
  for (const benchmark of module.benchmarks) {
    process.stdout.write(`${formatResult(await measure(benchmark))}\n`);
  }
  // A benchmark file may add what its runs held (counts, not times).
  const report = module.report?.();
  if (report) process.stdout.write(`${report}\n`);
}
