/**
 * Which clobbot made a backtest, for its manifest: the package version, and the git commit of the
 * checkout it runs from when it runs from one; null for what is not known (an installed package has
 * no .git; a bundle may have no package.json beside it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** @example codeVersion() // { version: '0.1.0', commit: '4842d01…' } */
export function codeVersion(): { readonly version: string | null; readonly commit: string | null } {
  let version: string | null = null;
  try {
    version = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
  } catch {
    // Bundled elsewhere: the version is not known.
  }
  let commit: string | null = null;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null;
  } catch {
    commit = null;
  }
  return { version, commit };
}
