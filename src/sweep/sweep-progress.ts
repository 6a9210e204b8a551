/**
 * A sweep's progress on the terminal: runs done, running and failed, and the time left, estimated
 * from the wall time the runs done so far took. On a terminal one line redrawn twice a second;
 * otherwise a plain line per run that ends. Wall time is the terminal's only: nothing of it reaches
 * the sweep's outputs.
 */
import { interval, type Subscription } from 'rxjs';
import { liveClock, type Clock } from '../core/clock.ts';
import type { CliIo } from '../cli/cli-io.ts';

export interface SweepProgress {
  started(): void;
  /** A started run went back to wait for another try; `line` says which and why. */
  requeued(line: string): void;
  /** A run ended; `line` says which and how. */
  finished(ok: boolean, line: string): void;
  /** Clears the terminal line. */
  stop(): void;
}

/** `1 h 05 min`, `3 min 20 s`, `45 s`. */
export function formatEta(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/** @example const progress = sweepProgress(io, 12); progress.started(); progress.finished(true, 'spreadBps=4: ok'); progress.stop(); */
export function sweepProgress(io: CliIo, total: number, clock: Clock = liveClock): SweepProgress {
  const startMs = clock.now();
  let done = 0;
  let failed = 0;
  let running = 0;
  const status = () => {
    const eta = done === 0 ? '…' : formatEta(((clock.now() - startMs) / done) * (total - done));
    return `${done}/${total} done, ${running} running, ${failed} failed, ETA ${eta}`;
  };
  const say = (text: string) => {
    if (io.isTty) io.stdout.write(`\r\u001b[K  ${text}\n  sweep  ${status()}`);
    else io.stdout.write(`  [${status()}] ${text}\n`);
  };
  let line: Subscription | undefined;
  if (io.isTty) line = interval(500, clock.scheduler).subscribe(() => io.stdout.write(`\r\u001b[K  sweep  ${status()}`));
  return {
    started() {
      running += 1;
    },
    requeued(text) {
      running -= 1;
      say(text);
    },
    finished(ok, text) {
      running -= 1;
      done += 1;
      if (!ok) failed += 1;
      say(text);
    },
    stop() {
      line?.unsubscribe();
      if (io.isTty) io.stdout.write('\r\u001b[K');
    },
  };
}
