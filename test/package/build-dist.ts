/**
 * Vitest global setup: the tests that spawn `bin/clobbot.js` run the compiled CLI in dist/, so dist/
 * is rebuilt (tsconfig.build.json, as `npm run build`) before the suite when any file of src/ (or the
 * build config) is newer than the last build. `npm ci` already built it (`prepare`); this keeps it
 * current while editing. The new build is compiled beside dist/ and swapped in, so a CLI started by a
 * concurrent suite never reads a half-written dist/; one build at a time (a lock directory).
 * Type errors do not stop the emit (`npm run typecheck` reports them), so the suite still runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.build-stamp');
const LOCK = join(ROOT, '.dist-build.lock');

function newestMtime(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function stampMtime(): number {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return -1;
  }
}

function sourcesMtime(): number {
  return Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'tsconfig.build.json')), newestMtime(join(ROOT, 'tsconfig.json')));
}

function takeLock(): boolean {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      // A lock older than two minutes is left over from a killed run.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
      if (Date.now() > deadline) return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

export default function setup(): void {
  if (stampMtime() >= sourcesMtime()) return;
  if (!takeLock()) throw new Error(`build-dist: ${LOCK} is held by another build`);
  try {
    const started = Date.now();
    const sources = sourcesMtime();
    if (stampMtime() >= sources) return; // built by the suite that held the lock
    const next = join(ROOT, `dist.build-${process.pid}`);
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', next], { cwd: ROOT, stdio: 'pipe' });
    } catch (error) {
      // Emitted anyway; the type errors are `npm run typecheck`'s to report.
      const output = String((error as { stdout?: unknown }).stdout ?? '').split('\n').slice(0, 5).join('\n');
      process.stderr.write(`build-dist: tsc reported errors (dist/ emitted anyway):\n${output}\n`);
    }
    // Stamped with the build's start: a source saved during the build makes the next suite rebuild.
    writeFileSync(join(next, '.build-stamp'), `${new Date(started).toISOString()}\n`);
    utimesSync(join(next, '.build-stamp'), started / 1000, started / 1000);
    const old = join(ROOT, `dist.old-${process.pid}`);
    let hadDist = true;
    try {
      renameSync(DIST, old);
    } catch {
      hadDist = false;
    }
    renameSync(next, DIST);
    if (hadDist) rmSync(old, { recursive: true, force: true });
    process.stderr.write(`build-dist: dist/ rebuilt in ${Date.now() - started} ms\n`);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
