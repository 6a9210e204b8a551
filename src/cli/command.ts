import type { CliIo } from './cli-io.ts';

/** Exit codes of clobbot: 0 success, 1 an unexpected failure, 2 a mistake in the input (usage, config). */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * One `clobbot` subcommand. `run` returns the exit code; it throws BaseError for input mistakes
 * (printed as `error CODE: message` by `main`).
 */
export interface Command {
  readonly name: string;
  /** One line for `clobbot help`. */
  readonly summary: string;
  /** The usage line(s) and options, printed by `clobbot help <name>` and on usage errors. */
  readonly usage: string;
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** A subcommand as `clobbot` lists it: its name and summary, and its module, imported on demand. */
export interface CommandEntry {
  readonly name: string;
  /** The same line as the command's own `summary`. */
  readonly summary: string;
  load(): Promise<Command>;
}
