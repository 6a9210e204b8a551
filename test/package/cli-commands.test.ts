/**
 * The command list of `clobbot` (src/cli/main.ts): each entry's name and summary are its command's
 * own, `clobbot help <command>` and `clobbot <command> --help` print every command's usage, and
 * `clobbot --version` prints the package's version, in-process and as the compiled bin/clobbot.js.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/main.ts';
import { runCli } from '../support/cli-harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const execFileAsync = promisify(execFile);

describe('clobbot commands, help and --version', () => {
  it('lists each command under its own name and summary', async () => {
    expect(new Set(commands.map((entry) => entry.name)).size).toBe(commands.length);
    for (const entry of commands) {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).toEqual({ name: entry.name, summary: entry.summary });
    }
  });

  it('prints the usage of every command for `help <command>` and `<command> --help`', async () => {
    for (const { name } of commands) {
      const help = await runCli(['help', name]);
      expect(help, name).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout, name).toMatch(new RegExp(`^usage: clobbot ${name}\\b`));
      const flag = await runCli([name, '--help']);
      expect(flag.stdout, name).toBe(help.stdout);
    }
  });

  it('prints the version for --version', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect((await runCli(['help'])).stdout).toContain('clobbot --version');
  });

  it('works from the compiled CLI: bin/clobbot.js --version and help <command>', async () => {
    const version = await execFileAsync(process.execPath, ['bin/clobbot.js', '--version'], { cwd: ROOT });
    expect(version.stdout).toBe(`${VERSION}\n`);
    const help = await execFileAsync(process.execPath, ['bin/clobbot.js', 'help', 'validate'], { cwd: ROOT });
    expect(help.stdout).toMatch(/^usage: clobbot validate /);
  });
});
