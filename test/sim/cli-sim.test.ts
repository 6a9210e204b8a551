/**
 * `clobbot sim` as a real process: the one listening line on stdout, JSON logs on stderr, a served
 * venue, and a clean exit 0 on SIGTERM and SIGINT. Usage mistakes exit 2 in-process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { WALLET, signIn } from './relay-harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

async function startSim(args: readonly string[]): Promise<Running> {
  const child = spawn(process.execPath, ['bin/clobbot.js', 'sim', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^clobbot sim listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}; stderr: ${stderr}`)));
  });
  return { child, url, stdout: () => stdout, stderr: () => stderr, exit };
}

describe('clobbot sim', () => {
  it('prints one listening line, serves /sim/info, and exits 0 on SIGTERM', async () => {
    const sim = await startSim(['--port', '0', '--block-ms', '50', '--seed', '7']);
    let jwt = '';
    try {
      const info = await fetch(`${sim.url}/sim/info`).then((response) => response.json() as Promise<any>);
      expect(info).toMatchObject({ chainId: 31337, blockMs: 50 });
      expect(info.markets.map((market: { symbol: string }) => market.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
      jwt = await signIn(sim.url, WALLET);
    } finally {
      sim.child.kill('SIGTERM');
    }
    expect(await sim.exit).toBe(0);
    expect(sim.stdout()).toBe(`clobbot sim listening on ${sim.url}\n`);
    const logs = sim.stderr().trim().split('\n').map((line) => JSON.parse(line));
    expect(logs.map((line) => line.msg)).toEqual(expect.arrayContaining(['sim venue listening', 'relay JWT issued', 'sim venue stopping']));
    // The issued JWT never reaches the logs.
    expect(jwt).toMatch(/^eyJ/);
    expect(sim.stderr()).not.toContain(jwt.split('.')[2]!);
  });

  it('exits 0 on SIGINT', async () => {
    const sim = await startSim(['--port', '0']);
    sim.child.kill('SIGINT');
    expect(await sim.exit).toBe(0);
  });

  it('refuses bad options with exit 2', async () => {
    for (const args of [['--port', '70000'], ['--port', 'x'], ['--block-ms', '5'], ['--seed', '-1'], ['--bogus'], ['extra']]) {
      const run = await runCli(['sim', ...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain('error CLI_USAGE');
    }
    const missing = await runCli(['sim', '--config', '/nonexistent/sim.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error CONFIG_');
  });
});
