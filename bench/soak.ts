/**
 * `npm run soak [-- --duration 10m --every 30s --warmup 1m --config config/market-maker.yaml]`: a
 * soak of the bot against the local venue, not in CI (it runs for real minutes).
 *
 * The local venue runs as a child process (`clobbot sim --port 0 --seed 1`, its background flow
 * on), so what is measured here is the bot alone: the venue keeps histories that grow by design
 * (trades, order events, receipts, up to their retention limits). The bot is the reference market
 * maker through `clobbot run` (`runBot`, the path of `npm start`: the real runtime, the wall clock,
 * the relay WebSocket) in this process, on a copy of the run file with `venueUrl` set and no duration.
 *
 * Every `--every` (the run's own status record, so samples fall between two pieces of the bot's
 * work, not inside one): heapUsed after a full GC (`--expose-gc`; without it the figures are
 * noisier), RSS, the engine's pending work (`engine.stats()`: intents queued, outcomes awaited,
 * signed requests unresolved, and the tracker's pending requests per market), and the open handles
 * of the process (`process.getActiveResourcesInfo()`, counted by type), with the venue's RSS
 * beside them for information. At the end: the table, the growth between the first sample after
 * the warm-up and the last, a least-squares slope per minute, and the verdict. Exit 1 when
 * heapUsed grows more than HEAP_MAX_GROWTH_MB or HEAP_MAX_SLOPE_MB_PER_MIN, RSS more than
 * RSS_MAX_GROWTH_MB or RSS_MAX_SLOPE_MB_PER_MIN, pending work or handles grow (the mean of the
 * later half of the samples above the earlier half's by more than PENDING_ALLOWANCE /
 * HANDLE_ALLOWANCE), work is left pending after the stop, or the run itself fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseDurationOption } from '../src/cli/commands/run.ts';
import { runBot } from '../src/cli/run/run-bot.ts';
import type { CliIo } from '../src/cli/cli-io.ts';

/** heapUsed (after GC) may grow at most this much from the first sample after the warm-up to the last, and at most this fast. */
const HEAP_MAX_GROWTH_MB = 8;
const HEAP_MAX_SLOPE_MB_PER_MIN = 1;
/** RSS is noisier (the allocator keeps pages): looser bounds. */
const RSS_MAX_GROWTH_MB = 40;
const RSS_MAX_SLOPE_MB_PER_MIN = 4;
/** Pending work (queued + awaited outcomes + unresolved) may be this much higher on average in the later half. */
const PENDING_ALLOWANCE = 1;
/** Open handles (all types) may be this many more on average in the later half. */
const HANDLE_ALLOWANCE = 2;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;

interface Options {
  readonly durationMs: number;
  readonly everyMs: number;
  readonly warmupMs: number;
  readonly config: string;
}

function usage(message: string): never {
  process.stderr.write(`soak: ${message}\nusage: npm run soak -- [--duration 10m] [--every 30s] [--warmup 1m] [--config <run file>]\n`);
  process.exit(2);
}

function parseOptions(args: readonly string[]): Options {
  const values: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 2) {
    const name = args[index]!;
    const value = args[index + 1];
    if (!['--duration', '--every', '--warmup', '--config'].includes(name) || value === undefined) usage(`unknown or incomplete option ${name}`);
    values[name.slice(2)] = value;
  }
  const duration = (text: string | undefined, fallback: string) => {
    try {
      return parseDurationOption(text ?? fallback);
    } catch (error) {
      return usage(error instanceof Error ? error.message.replace(/^run: --duration/, 'a duration') : String(error));
    }
  };
  const options = {
    durationMs: duration(values['duration'], '10m'),
    everyMs: duration(values['every'], '30s'),
    warmupMs: duration(values['warmup'], '1m'),
    config: resolve(root, values['config'] ?? 'config/market-maker.yaml'),
  };
  if (options.everyMs * 3 > options.durationMs - options.warmupMs) usage('the run needs at least three samples after the warm-up: lengthen --duration or shorten --every/--warmup');
  return options;
}

interface Sample {
  /** ms since the run started. */
  readonly t: number;
  readonly heapMb: number;
  readonly rssMb: number;
  readonly queued: number;
  readonly pendingOutcomes: number;
  readonly unresolved: number;
  /** The tracker's pending requests, over every market. */
  readonly pendingRequests: number;
  readonly handles: ReadonlyMap<string, number>;
  readonly handleTotal: number;
  readonly venueRssMb: number | undefined;
  readonly signed: number;
  readonly confirmed: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

function handleCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function memory(): { heapMb: number; rssMb: number } {
  gc?.();
  const usage = process.memoryUsage();
  return { heapMb: usage.heapUsed / MB, rssMb: usage.rss / MB };
}

/** The RSS of another process (Linux `/proc`), undefined elsewhere. */
function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+([0-9]+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Starts `clobbot sim` on a free port; resolves with its URL once it listens. */
function startVenue(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(root, 'bin/clobbot.js'), 'sim', '--port', '0', '--seed', '1'], {
    cwd: root,
    env: { ...process.env, CLOBBOT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-4000);
  });
  return new Promise((resolveStart, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /clobbot sim listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolveStart({ child, url: match[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`clobbot sim exited (${code}) before listening: ${errors.trim()}`)));
  });
}

function stopVenue(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** Least-squares slope of `value` per minute over the samples. */
function slopePerMinute(samples: readonly Sample[], value: (sample: Sample) => number): number {
  const n = samples.length;
  const meanT = samples.reduce((sum, s) => sum + s.t, 0) / n;
  const meanV = samples.reduce((sum, s) => sum + value(s), 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - meanT) * (value(s) - meanV);
    den += (s.t - meanT) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60_000;
}

/** Mean of the later half minus the mean of the earlier half (the middle sample of an odd count in neither). */
function halvesGrowth(samples: readonly Sample[], value: (sample: Sample) => number): number {
  const half = Math.floor(samples.length / 2);
  const mean = (list: readonly Sample[]) => list.reduce((sum, s) => sum + value(s), 0) / list.length;
  return mean(samples.slice(samples.length - half)) - mean(samples.slice(0, half));
}

const pendingOf = (s: Sample) => s.queued + s.pendingOutcomes + s.unresolved;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const signed = (value: number, digits = 1) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
const pad = (text: string, width: number) => text.padStart(width);

function formatHandles(handles: ReadonlyMap<string, number>): string {
  return [...handles].sort(([a], [b]) => a.localeCompare(b)).map(([type, count]) => `${type} ${count}`).join(', ');
}

function printTable(samples: readonly Sample[], warmupMs: number): void {
  const head = ['t', 'heapMB', 'rssMB', 'queued', 'outcomes', 'unresolved', 'pendingReq', 'handles', 'venueRssMB', 'signed', 'confirmed'];
  const widths = [7, 8, 8, 7, 9, 11, 11, 8, 11, 7, 10];
  const line = (cells: readonly string[]) => cells.map((cell, index) => pad(cell, widths[index]!)).join(' ');
  process.stdout.write(`\n${line(head)}\n`);
  for (const s of samples) {
    process.stdout.write(
      `${line([
        `${Math.round(s.t / 1000)}s${s.t < warmupMs ? '*' : ''}`,
        fixed(s.heapMb),
        fixed(s.rssMb),
        String(s.queued),
        String(s.pendingOutcomes),
        String(s.unresolved),
        String(s.pendingRequests),
        String(s.handleTotal),
        s.venueRssMb === undefined ? '-' : fixed(s.venueRssMb),
        String(s.signed),
        String(s.confirmed),
      ])}\n`,
    );
  }
  process.stdout.write('(* warm-up, left out of the verdict)\n');
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (gc === undefined) process.stdout.write('soak: no --expose-gc: heap figures include garbage not yet collected (npm run soak passes it)\n');
  const temp = mkdtempSync(join(tmpdir(), 'clobbot-soak-'));
  const logFile = join(temp, 'run.log.jsonl');
  const before = { handles: handleCounts(), ...memory() };
  const { child, url } = await startVenue();
  process.stdout.write(`soak: venue ${url} (pid ${child.pid}), ${Math.round(options.durationMs / 1000)} s, a sample every ${Math.round(options.everyMs / 1000)} s, warm-up ${Math.round(options.warmupMs / 1000)} s; run log ${logFile}\n`);

  // The run file as written, pointed at the running venue, without a duration of its own.
  const runFile = parseYaml(readFileSync(options.config, 'utf8')) as Record<string, unknown>;
  delete runFile['duration'];
  runFile['venueUrl'] = url;
  if (typeof runFile['simConfig'] === 'string') runFile['simConfig'] = resolve(root, runFile['simConfig']);
  const file = join(temp, 'soak-run.yaml');
  writeFileSync(file, stringifyYaml(runFile));

  const samples: Sample[] = [];
  const log: string[] = [];
  let partial = '';
  let warnings = 0;
  let finalEngine: Record<string, number> | undefined;
  const onLogLine = (line: string) => {
    log.push(line);
    let record: { level?: number | string; msg?: string; elapsedMs?: number; engine?: Record<string, number>; markets?: { pending?: number }[] };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return;
    }
    if (typeof record.level === 'number' ? record.level >= 40 : record.level === 'warn' || record.level === 'error') warnings += 1;
    if (record.msg === 'execution engine stopped') finalEngine = record as unknown as Record<string, number>;
    if (record.msg !== 'status' || record.engine === undefined) return;
    const handles = handleCounts();
    const engine = record.engine;
    samples.push({
      t: record.elapsedMs ?? 0,
      ...memory(),
      queued: engine['queued'] ?? 0,
      pendingOutcomes: engine['pendingOutcomes'] ?? 0,
      unresolved: engine['unresolved'] ?? 0,
      pendingRequests: (record.markets ?? []).reduce((sum, market) => sum + Number(market.pending ?? 0), 0),
      handles,
      handleTotal: [...handles.values()].reduce((sum, count) => sum + count, 0),
      venueRssMb: rssOf(child.pid),
      signed: engine['signed'] ?? 0,
      confirmed: engine['confirmed'] ?? 0,
    });
    const s = samples.at(-1)!;
    process.stdout.write(`  ${Math.round(s.t / 1000)} s: heap ${fixed(s.heapMb)} MB, rss ${fixed(s.rssMb)} MB, pending ${pendingOf(s)}, handles ${s.handleTotal}\n`);
  };
  const io: CliIo = {
    stdout: { write: (text: string) => process.stdout.write(text) },
    stderr: {
      write: (text: string) => {
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') onLogLine(line);
      },
    },
    env: process.env,
    isTty: false,
  };

  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.durationMs);
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  let exitCode: number;
  try {
    exitCode = await runBot(io, { file, cwd: root, stop: stop.signal, statusEveryMs: options.everyMs, seed: 1 });
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    writeFileSync(logFile, `${log.join('\n')}\n`);
    // Also when the run throws: the venue never outlives the soak.
    await stopVenue(child);
  }
  // Let sockets closed at the stop finish closing before the handles are counted again.
  await new Promise((done) => setTimeout(done, 500));
  const after = { handles: handleCounts(), ...memory() };

  printTable(samples, options.warmupMs);
  const steady = samples.filter((s) => s.t >= options.warmupMs);
  const problems: string[] = [];
  process.stdout.write('\nverdict (first sample after the warm-up -> last; slope: least squares per minute)\n');
  if (steady.length < 3) {
    problems.push(`only ${steady.length} samples after the warm-up`);
  } else {
    const first = steady[0]!;
    const last = steady.at(-1)!;
    const heapGrowth = last.heapMb - first.heapMb;
    const heapSlope = slopePerMinute(steady, (s) => s.heapMb);
    const rssGrowth = last.rssMb - first.rssMb;
    const rssSlope = slopePerMinute(steady, (s) => s.rssMb);
    const pendingGrowth = halvesGrowth(steady, pendingOf);
    const pendingSlope = slopePerMinute(steady, pendingOf);
    const handleGrowth = halvesGrowth(steady, (s) => s.handleTotal);
    const handleSlope = slopePerMinute(steady, (s) => s.handleTotal);
    const venue = first.venueRssMb !== undefined && last.venueRssMb !== undefined ? `; venue rss ${fixed(first.venueRssMb)} -> ${fixed(last.venueRssMb)} MB (not judged)` : '';
    process.stdout.write(
      `  heapUsed  ${fixed(first.heapMb)} -> ${fixed(last.heapMb)} MB (${signed(heapGrowth)} MB, ${signed(heapSlope, 2)} MB/min; limits ${HEAP_MAX_GROWTH_MB} MB, ${HEAP_MAX_SLOPE_MB_PER_MIN} MB/min)\n` +
        `  rss       ${fixed(first.rssMb)} -> ${fixed(last.rssMb)} MB (${signed(rssGrowth)} MB, ${signed(rssSlope, 2)} MB/min; limits ${RSS_MAX_GROWTH_MB} MB, ${RSS_MAX_SLOPE_MB_PER_MIN} MB/min)${venue}\n` +
        `  pending   ${pendingOf(first)} -> ${pendingOf(last)} (later half ${signed(pendingGrowth, 2)} on average, ${signed(pendingSlope, 3)}/min; limit +${PENDING_ALLOWANCE})\n` +
        `  handles   ${first.handleTotal} -> ${last.handleTotal} (later half ${signed(handleGrowth, 2)} on average, ${signed(handleSlope, 3)}/min; limit +${HANDLE_ALLOWANCE}): ${formatHandles(last.handles)}\n`,
    );
    if (heapGrowth > HEAP_MAX_GROWTH_MB || heapSlope > HEAP_MAX_SLOPE_MB_PER_MIN) problems.push('heapUsed grew');
    if (rssGrowth > RSS_MAX_GROWTH_MB || rssSlope > RSS_MAX_SLOPE_MB_PER_MIN) problems.push('RSS grew');
    if (pendingGrowth > PENDING_ALLOWANCE) problems.push('pending work grew');
    if (handleGrowth > HANDLE_ALLOWANCE) problems.push('open handles grew');
  }
  const left = finalEngine === undefined ? undefined : (finalEngine['unresolved'] ?? 0) + (finalEngine['queued'] ?? 0) + (finalEngine['pendingOutcomes'] ?? 0);
  process.stdout.write(
    `  stop      engine ${finalEngine === undefined ? 'did not report its stop' : `unresolved ${finalEngine['unresolved']}, queued ${finalEngine['queued']}, pendingOutcomes ${finalEngine['pendingOutcomes']}`}; ` +
      `handles before the run ${[...before.handles.values()].reduce((a, b) => a + b, 0)} (${formatHandles(before.handles)}), after it ${[...after.handles.values()].reduce((a, b) => a + b, 0)} (${formatHandles(after.handles)}); ` +
      `heap before ${fixed(before.heapMb)} MB, after ${fixed(after.heapMb)} MB; warnings and errors logged: ${warnings}\n`,
  );
  if (left === undefined || left > 0) problems.push('work left pending after the stop');
  if (exitCode !== 0) problems.push(`the run exited ${exitCode}`);
  process.stdout.write(problems.length === 0 ? 'soak: PASS\n' : `soak: FAIL: ${problems.join('; ')}\n`);
  rmSync(join(temp, 'soak-run.yaml'), { force: true });
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
