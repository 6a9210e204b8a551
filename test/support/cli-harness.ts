/** In-process `clobbot` runs for tests: temp config files and captured output. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { main } from '../../src/cli/main.ts';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `clobbot <argv>` in-process with the given environment. */
export async function runCli(argv: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    isTty: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** A temp directory for config files; `remove()` it after the test. */
export function tempDir(): { readonly dir: string; write(name: string, text: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-config-'));
  return {
    dir,
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
