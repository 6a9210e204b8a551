import { execFile } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';

const execFileAsync = promisify(execFile);

const VALID_RUN = `wallet: { privateKeyEnv: CLOBBOT_KEY }
markets: [MON_USDC]
strategies:
  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { spreadBps: 20 } }
risk: { maxPosition: "100", maxOrderSize: "10", maxNotional: "500" }
`;

/** Writes `text` to a temp file, runs `clobbot validate` on it, and returns the run with the file name. */
async function validate(text: string, args: string[] = [], env: Record<string, string> = {}) {
  const tmp = tempDir();
  try {
    const file = tmp.write('config.yaml', text);
    return { file, ...(await runCli(['validate', file, ...args], env)) };
  } finally {
    tmp.remove();
  }
}

function expectNoStackTrace(output: string): void {
  expect(output).not.toMatch(/\n\s+at /);
  expect(output).not.toMatch(/\.ts:\d+:\d+\)/);
}

describe('clobbot validate: the shipped configs', () => {
  it('accepts config/market-maker.yaml with a one-line summary', async () => {
    const result = await runCli(['validate', 'config/market-maker.yaml']);
    expect(result).toEqual({
      code: 0,
      stdout: 'config/market-maker.yaml: valid run file (network sim, 1 strategy, markets MON_USDC)\n',
      stderr: '',
    });
  });

  it('accepts config/sim.yaml with a one-line summary', async () => {
    const result = await runCli(['validate', 'config/sim.yaml']);
    expect(result).toEqual({
      code: 0,
      stdout: 'config/sim.yaml: valid sim config (chain 31337, 3 tokens, markets MON_USDC, WETH_USDC)\n',
      stderr: '',
    });
  });

  it('works as a real process through bin/clobbot.js', async () => {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['bin/clobbot.js', 'validate', 'config/market-maker.yaml'], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(stdout).toBe('config/market-maker.yaml: valid run file (network sim, 1 strategy, markets MON_USDC)\n');
    expect(stderr).toBe('');
    const failed = await execFileAsync(process.execPath, ['bin/clobbot.js', 'validate', 'config/nope.yaml']).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toBe('config/nope.yaml: cannot read the file: no such file\nconfig/nope.yaml: not a valid config file (1 problem)\n');
  });
});

describe('clobbot validate: bad input gives located errors and exit 2', () => {
  it('malformed YAML', async () => {
    const { file, code, stdout, stderr } = await validate('markets: [MON_USDC\nstrategies: []\n');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${file}:2:1: YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]\n${file}: not a valid config file (1 problem)\n`,
    );
    expectNoStackTrace(stderr);
  });

  it('a duplicate key', async () => {
    const { file, code, stderr } = await validate(`${VALID_RUN}markets: [WETH_USDC]\n`);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`${file}:6:1: duplicate key markets: a key may appear only once in a map`);
  });

  it('an unknown key, at the key', async () => {
    const { file, code, stderr } = await validate(VALID_RUN.replace('risk: {', 'risk: { maxLeverage: 3,'));
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      `${file}:5:9 risk.maxLeverage: unknown key (allowed here: maxPosition, maxOrderSize, maxNotional, priceBandBps, maxOrdersPerSecond, maxOpenOrders, killSwitch)`,
    );
  });

  it('a wrong type', async () => {
    const { file, code, stderr } = await validate(`${VALID_RUN}engine:\n  maxPendingOutcomes: "abc"\n`);
    expect(code).toBe(2);
    expect(stderr).toBe(`${file}:7:23 engine.maxPendingOutcomes: expected a number, got a string\n${file}: invalid run file (1 problem)\n`);
  });

  it('a missing environment variable', async () => {
    const text = VALID_RUN.replace('privateKeyEnv: CLOBBOT_KEY', 'privateKeyFile: "${KEY_DIR}/key"');
    const { file, code, stderr } = await validate(text, [], {});
    expect(code).toBe(2);
    expect(stderr).toBe(`${file}:1:27 wallet.privateKeyFile: environment variable KEY_DIR is not set\n${file}: not a valid config file (1 problem)\n`);
    // With the variable set, validate goes on to check the key file as clobbot run does: it must exist.
    const keys = tempDir();
    try {
      const params = text.replace('params: { spreadBps: 20 }', 'params: { levels: 1, spreadBps: 20, size: "1", maxInventory: "10" }');
      expect((await validate(params, [], { KEY_DIR: keys.dir })).stderr).toMatch(/^error CONFIG_WALLET_KEY_MISSING: key file .*\/key does not exist\n/);
      chmodSync(keys.write('key', `0x${'11'.repeat(32)}\n`), 0o600);
      expect(await validate(params, [], { KEY_DIR: keys.dir })).toMatchObject({ code: 0, stderr: '' });
    } finally {
      keys.remove();
    }
  });

  it('an inline private key', async () => {
    const key = `0x${'9a'.repeat(32)}`;
    const { file, code, stdout, stderr } = await validate(VALID_RUN.replace('privateKeyEnv: CLOBBOT_KEY', `privateKey: "${key}"`));
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      `${file}:1:23 wallet.privateKey: never write a private key in the run file: set privateKeyEnv to the NAME of an environment variable that holds it, or privateKeyFile to a file that holds it`,
    );
    expect(stdout + stderr).not.toContain(key.slice(2));
  });

  it('maxPendingOutcomes 64', async () => {
    const { file, code, stderr } = await validate(`${VALID_RUN}engine: { maxPendingOutcomes: 64 }\n`);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      `${file}:6:31 engine.maxPendingOutcomes: expected at most 63: the relay closes the connection when 64 outcomes are pending`,
    );
  });

  it('mainnet without allowMainnet', async () => {
    const hosts = 'hosts: { relayUrl: "https://r.example", relayWsUrl: "wss://r.example/relay/ws", rpcUrl: "https://rpc.example" }\n';
    const { file, code, stderr } = await validate(`network: mainnet\n${hosts}${VALID_RUN}`);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `${file}:1:10 network: mainnet trades real money: add allowMainnet: true to the run file to opt in\n${file}: invalid run file (1 problem)\n`,
    );
    // Opted in, what `clobbot run` needs off the sim is still missing: the markets given whole, account.id.
    const optedIn = await validate(`network: mainnet\nallowMainnet: true\n${hosts}${VALID_RUN}`);
    expect(optedIn.code).toBe(2);
    expect(optedIn.stderr).toContain(`${optedIn.file}:1:1 account.id: required on mainnet`);
    expect(optedIn.stderr).toContain(`${optedIn.file}:5:11 markets[0]: on mainnet a market is given whole, not by symbol`);
  });

  it('a sim config error, kind inferred from markets and tokens', async () => {
    const { file, code, stderr } = await validate('blockMs: fast\ntokens: []\nmarkets: []\n');
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      `${file}:1:10 blockMs: expected a number, got a string`,
      `${file}:2:9 tokens: expected at least 1 item`,
      `${file}:3:10 markets: expected at least 1 item`,
      `${file}: invalid sim config (3 problems)`,
    ]);
  });

  it('a file of unknown kind, unless --kind says', async () => {
    const unknown = await validate('hello: world\n');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe(
      `${unknown.file}:1:1: cannot tell the kind of file: a run file has \`strategies\`, a sim config has \`markets\` and \`tokens\`; or pass --kind run|sim`,
    );
    const forced = await validate('hello: world\n', ['--kind', 'sim']);
    expect(forced.code).toBe(2);
    expect(forced.stderr).toContain(`${forced.file}:1:1 hello: unknown key`);
    expect(forced.stderr).toContain(`${forced.file}: invalid sim config`);
  });
});

describe('clobbot: commands, help and usage errors', () => {
  it('prints the overview for --help and help', async () => {
    for (const argv of [['--help'], ['help']]) {
      const result = await runCli(argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^clobbot: /);
      expect(result.stdout).toMatch(/\n {2}validate {2}check a run file/);
      expect(result.stderr).toBe('');
    }
    const one = await runCli(['help', 'validate']);
    expect(one.stdout).toMatch(/^usage: clobbot validate <file> \[--kind run\|sim\]/);
    const flag = await runCli(['validate', '--help']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(one.stdout);
  });

  it('refuses an unknown command with the usage on stderr and exit 2', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error CLI_USAGE: unknown command "frobnicate"\n\nclobbot: .*\nusage: clobbot <command>/s);
  });

  it('prints the usage on stderr with exit 2 when no command is given', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/usage: clobbot <command>/);
  });

  it('reports argument mistakes as CLI_USAGE, without a stack trace', async () => {
    const cases: [string[], string][] = [
      [['validate'], 'error CLI_USAGE: validate: expected <file>, got 0 arguments\n'],
      [['validate', 'a.yaml', 'b.yaml'], 'error CLI_USAGE: validate: expected <file>, got 2 arguments\n'],
      [['validate', 'a.yaml', '--bogus'], "error CLI_USAGE: validate: Unknown option '--bogus'\n"],
      [['validate', 'a.yaml', '--kind', 'backtest'], 'error CLI_USAGE: validate: --kind must be one of run, sim\n'],
      [['help', 'nope'], 'error CLI_USAGE: help: unknown command "nope"\n'],
    ];
    for (const [argv, first] of cases) {
      const result = await runCli(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.startsWith(first), result.stderr).toBe(true);
      expectNoStackTrace(result.stderr);
    }
  });
});

describe('clobbot: unexpected failures', () => {
  it('prints a short message and exits 1, with no stack trace and no secret', async () => {
    let stderr = '';
    const secret = `0x${'5e'.repeat(32)}`;
    const code = await main(['validate', 'config/sim.yaml'], {
      stdout: {
        write: () => {
          throw new Error(`stdout closed while writing ${secret}`);
        },
      },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
      isTty: false,
    });
    expect(code).toBe(1);
    expect(stderr).toBe('error: unexpected failure in validate: stdout closed while writing [redacted]\n');
  });
});
