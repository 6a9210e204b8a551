/** The log levels of clobbot's logger (pino's), in a module of its own so config schemas need not load pino. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** @useDeclaredType */
export type LogLevel = (typeof LOG_LEVELS)[number];
