/**
 * The outside world of a command: output streams, environment and working directory. Injected so
 * tests call `main()` in-process and read what it wrote.
 */
import type { Env } from '../config/env-interpolation.ts';

/** Anything text can be written to (a process stream, a test buffer). */
export interface TextSink {
  write(text: string): unknown;
}

export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** For `${NAME}` interpolation and options from the environment. */
  readonly env: Env;
  /** True when stdout is a terminal (pretty output by default). */
  readonly isTty: boolean;
}

/** The real process: its stdout, stderr and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, isTty: process.stdout.isTTY === true };
}
