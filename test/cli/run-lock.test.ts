/**
 * One wallet, one running bot: a second `clobbot run` process on the wallet and journal directory of
 * a running one is refused with JOURNAL_LOCKED (exit 1) before it touches the venue. It reaches the
 * venue through a recording loopback proxy, which must see nothing from it: no `/sim/info`, no
 * sign-in, no relay WebSocket (a second connection of the wallet would replace the running bot's).
 */
import { spawn } from 'node:child_process';
import { createConnection, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { startTestVenue, type TestVenue } from '../sim/relay-harness.ts';
import { hasStackTrace, runLines, watchedIo, workspace, type Workspace } from './run-harness.ts';

const WALLET_KEY = `0x${'b2'.repeat(32)}`;
const ROOT = new URL('../..', import.meta.url).pathname;

let ws: Workspace | undefined;
let venue: TestVenue | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  ws?.remove();
  ws = undefined;
  await new Promise((resolve) => (proxy === undefined ? resolve(undefined) : proxy.close(resolve)));
  proxy = undefined;
  await venue?.stop();
  venue = undefined;
});

/** A TCP proxy on loopback to `port` that records the request line of every HTTP request (and upgrade) it passes on. */
async function recordingProxy(port: number): Promise<{ readonly url: string; readonly requests: string[] }> {
  const requests: string[] = [];
  proxy = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port });
    client.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/^(GET|POST|PUT|DELETE|PATCH) (\S+) HTTP\/1\.1\r\n/gm)) requests.push(`${match[1]} ${match[2]}`);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy address');
  return { url: `http://127.0.0.1:${address.port}`, requests };
}

describe('clobbot run: the journal lock comes before the venue', () => {
  it('a second process on the same wallet and journal is refused with JOURNAL_LOCKED before it sends the venue anything', async () => {
    venue = await startTestVenue({ blockMs: 50, backgroundFlow: true });
    ws = workspace();
    const journalDir = `${ws.dir}/journal`;
    const strategy = ['strategies:', '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "500", maxInventory: "50000" } }'];
    const first = ws.runFile('first.yaml', [...runLines({ venueUrl: venue.url, simConfig: ws.simConfig(), wallet: '{ privateKeyEnv: CLOBBOT_KEY }', duration: '60s' }), ...strategy]);
    const recorded = await recordingProxy(Number(new URL(venue.url).port));
    const second = ws.runFile('second.yaml', [...runLines({ venueUrl: recorded.url, simConfig: ws.simConfig(), wallet: '{ privateKeyEnv: CLOBBOT_KEY }', duration: '5s' }), ...strategy]);

    // The first bot runs in this process and holds the journal.
    const stop = new AbortController();
    const out = watchedIo({ env: { CLOBBOT_KEY: WALLET_KEY } });
    const running = runCommandMain([first, '--journal-dir', journalDir], out.io, { stop: stop.signal });
    await out.until(({ stdout }) => stdout.includes('  running     '), 'the first bot ran', running);

    // The second is a process of its own, through the recording proxy.
    const child = spawn(process.execPath, ['bin/clobbot.js', 'run', second, '--journal-dir', journalDir], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', CLOBBOT_KEY: WALLET_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    stop.abort();
    expect(await running, out.stderr().slice(-2000)).toBe(0);

    expect(code, stdout + stderr.slice(-2000)).toBe(1);
    expect(stderr).toMatch(new RegExp(`error JOURNAL_LOCKED: journal .*sim-0x[0-9a-f]{40}\\.journal\\.jsonl is in use by process ${process.pid} on `));
    expect(hasStackTrace(stderr)).toBe(false);
    // Nothing reached the venue from the second process: not a read, not a sign-in, not a WebSocket.
    expect(recorded.requests).toEqual([]);
  }, 60_000);
});
