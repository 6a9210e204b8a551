/**
 * The version of the clobbot package, for `clobbot --version`: read from the package.json beside
 * `src/` (or `dist/` when compiled: both sit one level below the package root).
 */
import { readFileSync } from 'node:fs';

/** @example packageVersion() // '0.1.0' */
export function packageVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof packageJson.version === 'string' ? packageJson.version : 'unknown';
}
