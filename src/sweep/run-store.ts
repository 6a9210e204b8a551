/**
 * The runs of a sweep on disk: `runs/<hash>/run.yaml` (the combination's run file: `clobbot backtest
 * runs/<hash>/run.yaml --feed …` replays the run whole), `manifest.json` and `summary.json` in the
 * sweep's output directory. A run is done when its summary.json exists: each file is written aside
 * and renamed, the summary last, so a sweep killed at any moment leaves no half-written run that
 * looks done, and the next sweep with the same output directory does only what is missing.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BacktestJob, BacktestJobResult } from './backtest-job.ts';

export interface RunStore {
  /** The run's result when it is done, else undefined. */
  read(hash: string): BacktestJobResult | undefined;
  write(job: BacktestJob, result: BacktestJobResult): void;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A file written aside and renamed: a reader sees it whole or not at all. */
function writeWhole(path: string, text: string): void {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, text);
  renameSync(aside, path);
}

/** @example const store = runStore('sweeps/market-maker-spreadBps'); store.read('3f9a0c…') */
export function runStore(out: string): RunStore {
  const dir = (hash: string) => join(out, 'runs', hash);
  return {
    read(hash) {
      const summary = join(dir(hash), 'summary.json');
      if (!existsSync(summary)) return undefined;
      return {
        summary: JSON.parse(readFileSync(summary, 'utf8')) as Record<string, unknown>,
        manifest: JSON.parse(readFileSync(join(dir(hash), 'manifest.json'), 'utf8')) as Record<string, unknown>,
      };
    },
    write(job, result) {
      mkdirSync(dir(job.hash), { recursive: true });
      writeWhole(join(dir(job.hash), 'run.yaml'), job.runFile.text);
      writeWhole(join(dir(job.hash), 'manifest.json'), json(result.manifest));
      writeWhole(join(dir(job.hash), 'summary.json'), json(result.summary));
    },
  };
}
