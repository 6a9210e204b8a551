/**
 * The pino logger of clobbot. Every log line passes through `redactSecrets` first: values under
 * secret-like keys at any depth, private keys, JWTs and Bearer credentials anywhere in strings
 * never reach the output. pino's own `redact` paths cannot match key substrings at any depth, so the
 * redaction runs in a `logMethod` hook (message, format arguments, merged object, errors) and again
 * in `formatters.log` (the object pino merges); child bindings are redacted by wrapping `child`.
 * Error stacks are written at debug level and below only.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Clock } from './clock.ts';
import { redactSecrets } from './secrets.ts';
import type { LogLevel } from './log-levels.ts';

export type { Logger } from 'pino';

export { LOG_LEVELS, type LogLevel } from './log-levels.ts';

export interface CreateLoggerParameters {
  /** Lowest level written. Default `info`. */
  readonly level?: LogLevel;
  /** One plain-text line per record (`12:00:00.000 INFO  message key=value`) instead of JSON. Default false. */
  readonly pretty?: boolean;
  /** Where lines go. Default: stderr, so stdout stays free for command output. */
  readonly destination?: DestinationStream;
  /** Bound to every line as `name`. */
  readonly name?: string;
  /** Timestamps from this clock (virtual time in backtests). Default: wall time. */
  readonly clock?: Pick<Clock, 'now'>;
}

/**
 * A pino logger with secret redaction; child loggers inherit it.
 *
 * @example
 * const log = createLogger({ level: 'debug' }).child({ component: 'engine' });
 * log.info({ wallet: { privateKey } }, 'connected'); // privateKey is written as "[redacted]"
 */
export function createLogger(params: CreateLoggerParameters = {}): Logger {
  const destination = params.destination ?? pino.destination({ dest: 2, sync: true });
  const clock = params.clock;
  const options: LoggerOptions = {
    level: params.level ?? 'info',
    // No pid and hostname: a bot's lines are read by people; `name` when given.
    base: params.name === undefined ? null : { name: params.name },
    ...(clock ? { timestamp: () => `,"time":${clock.now()}` } : {}),
    // Errors are already plain objects after redaction; pino's serializer would retype them.
    serializers: { err: (value: unknown) => value },
    formatters: {
      log: (object) => redactSecrets(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method, level) {
        const redacted = redactArguments(args);
        // Stacks (source paths, line numbers) are for debugging: a warning says what, not where.
        method.apply(this, (level > DEBUG_LEVEL ? redacted.map(withoutStacks) : redacted) as Parameters<typeof method>);
      },
    },
  };
  const logger = pino(options, params.pretty ? prettyStream(destination) : destination);
  return withRedactedBindings(logger);
}

/** pino's number for `debug`: lines of this level and below keep error stacks. */
const DEBUG_LEVEL = 20;

/** `value` without `stack` fields at any depth (an error's, and its causes'). */
function withoutStacks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStacks);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (key !== 'stack') out[key] = withoutStacks(inner);
  return out;
}

/** Redacts every argument of a log call; keeps an Error's message as the line's message. */
function redactArguments(args: readonly unknown[]): unknown[] {
  const [first, ...rest] = args;
  const out = args.map((arg) => redactSecrets(arg));
  if (first instanceof Error) {
    // pino files an Error argument under `err` and takes its message; the redacted copy is a plain object.
    const copy = out[0] as { message: string };
    out[0] = { err: copy };
    if (typeof rest[0] !== 'string') out.splice(1, 0, copy.message);
  }
  return out;
}

/**
 * Child bindings do not pass through `formatters.log`: redact them as the child is made.
 *
 * pino appends a child's bindings to its parent's, so a key bound by both would be written twice on
 * every line (`{"component":"engine","component":"execution-engine"}`: not strict JSON). A child
 * that binds a key its parent already binds is made from the root with the bindings merged once:
 * `component` becomes a path (`engine/execution-engine`), any other key takes the child's value.
 */
function withRedactedBindings(logger: Logger): Logger {
  const child = logger.child;
  const setBindings = logger.setBindings;
  const rootKeys = new Set(Object.keys(logger.bindings()));
  // Children are created with Object.create(parent), so they inherit these own properties.
  Object.assign(logger, {
    child(this: Logger, bindings: Record<string, unknown>, options?: Parameters<Logger['child']>[1]) {
      const own = redactSecrets(bindings) as Record<string, unknown>;
      const inherited = this.bindings() as Record<string, unknown>;
      if (!Object.keys(own).some((key) => key in inherited)) return child.call(this, own, options);
      const merged: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(inherited)) if (!rootKeys.has(key)) merged[key] = value;
      Object.assign(merged, own);
      if ('component' in own && 'component' in inherited) merged['component'] = `${String(inherited['component'])}/${String(own['component'])}`;
      return child.call(logger, merged, { level: this.level, ...options });
    },
    setBindings(this: Logger, bindings: Record<string, unknown>) {
      setBindings.call(this, redactSecrets(bindings) as Record<string, unknown>);
    },
  });
  return logger;
}

const LEVEL_LABELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * One JSON log line -> `HH:MM:SS.mmm LEVEL message key=value …` (UTC). Lines that are not JSON
 * objects pass through unchanged.
 *
 * @example formatPrettyLine('{"level":30,"time":0,"msg":"hi","n":1}') // '00:00:00.000 INFO  hi n=1'
 */
export function formatPrettyLine(line: string): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line.replace(/\n$/, '');
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return line.replace(/\n$/, '');
  const { level, time, msg, pid: _pid, hostname: _hostname, ...fields } = record as Record<string, unknown>;
  const stamp = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '--:--:--.---';
  const label = (typeof level === 'number' ? LEVEL_LABELS[level] : undefined) ?? String(level ?? '').toUpperCase();
  const parts = [stamp, label.padEnd(5), typeof msg === 'string' ? msg : msg === undefined ? '' : JSON.stringify(msg)];
  for (const [key, value] of Object.entries(fields)) {
    const text = typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
    parts.push(`${key}=${text}`);
  }
  return parts.filter((part) => part !== '').join(' ');
}

function prettyStream(destination: DestinationStream): DestinationStream {
  return {
    write(chunk: string) {
      destination.write(`${formatPrettyLine(chunk)}\n`);
    },
  };
}
