/**
 * A Redis of its own for a test: Debian's redis-server on a free loopback port, nothing saved to
 * disk, stopped (and waited for) by `stop()`. `freePort()` gives a port nothing listens on, for an
 * unreachable Redis too.
 */
import { spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>/<db>`. */
  url(db?: number): string;
  stop(): Promise<void>;
}

/** A loopback port free a moment ago: bound on port 0, then closed. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.once('error', (error) => (output += `${error.message}\n`)); // not installed: apt-get install redis-server
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.pid === undefined || Date.now() > deadline) throw new Error(`redis-server did not start on ${port}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    url: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
