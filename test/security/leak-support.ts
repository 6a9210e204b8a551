/**
 * Pieces of the secrets tests: the real `clobbot` command as a child process, a loopback tap that
 * sits between the bot and the local venue and keeps every byte each way (so the test sees every
 * request line the bot sent and every JWT the venue handed out), every file under a directory, and
 * a secret in each encoding a leak would take.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/clobbot.js');

export interface CliProcess {
  readonly child: ChildProcess;
  readonly args: readonly string[];
  stdout(): string;
  stderr(): string;
  /** Exit code and signal. */
  readonly exit: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** Resolves once `predicate` holds over the output so far; rejects if the process exits first or after `timeoutMs`. */
  until(predicate: (out: { stdout: string; stderr: string }) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/** `node bin/clobbot.js <args>` in `cwd` with exactly `env` (plus nothing inherited). */
export function spawnCli(args: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string> }): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  const checks = new Set<() => void>();
  const wake = () => {
    for (const check of checks) check();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString('utf8');
    wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString('utf8');
    wake();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    args,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    exit,
    until(predicate, what, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          checks.delete(check);
        };
        const fail = (why: string) => {
          done();
          reject(new Error(`clobbot ${args.join(' ')}: ${why} before ${what}; stdout: ${out.stdout.slice(-1500)}; stderr: ${out.stderr.slice(-2500)}`));
        };
        const check = () => {
          if (!predicate(out)) return;
          done();
          resolve();
        };
        checks.add(check);
        check();
        void exit.then(() => {
          if (checks.has(check)) fail('it exited');
        });
      });
    },
  };
}

/** Runs `clobbot <args>` to its end. */
export async function runCliProcess(args: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string> }) {
  const running = spawnCli(args, options);
  const { code, signal } = await running.exit;
  return { code, signal, stdout: running.stdout(), stderr: running.stderr() };
}

/** One connection through the tap: the bytes the client sent and the bytes the server answered. */
export interface TappedConnection {
  readonly fromClient: Buffer[];
  readonly fromServer: Buffer[];
}

export interface Tap {
  /** `http://127.0.0.1:<port>`: give it to the bot as the venue. */
  readonly url: string;
  readonly connections: readonly TappedConnection[];
  /** Every request target the clients sent (`GET /api/v3/depth?symbol=…`, the WebSocket upgrade…), in order per connection. */
  requests(): { readonly method: string; readonly target: string }[];
  /** Everything the clients sent, connection by connection (latin1, so bytes map 1:1 to characters). */
  clientText(): string;
  /** Everything the server answered. */
  serverText(): string;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 in front of `target` (host:port of the venue) that keeps every byte of
 * every connection: the network as the bot uses it, seen from outside the bot.
 */
export async function startTap(target: { readonly host: string; readonly port: number }): Promise<Tap> {
  const connections: TappedConnection[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const tapped: TappedConnection = { fromClient: [], fromServer: [] };
    connections.push(tapped);
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      tapped.fromClient.push(Buffer.from(chunk));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      tapped.fromServer.push(Buffer.from(chunk));
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const text = (pick: (connection: TappedConnection) => Buffer[]) => connections.map((connection) => Buffer.concat(pick(connection)).toString('latin1')).join('\n\u0000\n');
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    requests() {
      const found: { method: string; target: string }[] = [];
      for (const connection of connections) {
        const sent = Buffer.concat(connection.fromClient).toString('latin1');
        // A request line; after a body the next request starts right behind it, so no line anchor.
        for (const match of sent.matchAll(/(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) (\S+) HTTP\/1\.[01]\r\n/g)) found.push({ method: match[1]!, target: match[2]! });
      }
      return found;
    },
    clientText: () => text((connection) => connection.fromClient),
    serverText: () => text((connection) => connection.fromServer),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every regular file under `dir`, with its bytes and mode. */
export function filesUnder(dir: string): { readonly path: string; readonly bytes: Buffer; readonly mode: number }[] {
  const out: { path: string; bytes: Buffer; mode: number }[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push({ path, bytes: readFileSync(path), mode: statSync(path).mode & 0o777 });
    }
  };
  walk(dir);
  return out;
}

/** A secret and the forms it would take in an output: as text in any case, with or without 0x, in base64, or as raw bytes. */
export interface SecretForms {
  readonly name: string;
  /** Searched in text (and in the bytes of files, as latin1). */
  readonly texts: readonly string[];
  /** Searched in the bytes of files. */
  readonly bytes: readonly Buffer[];
}

const base64Forms = (bytes: Buffer): string[] => {
  const standard = bytes.toString('base64');
  const url = bytes.toString('base64url');
  return [...new Set([standard, standard.replace(/=+$/, ''), url])];
};

/**
 * A 32-byte private key (0x + 64 hex): with and without 0x, lower and upper case, a 24-digit window
 * of its middle (a key cut short), base64 and base64url of its bytes, its decimal value (a bigint
 * printed), and the raw bytes.
 */
export function keyForms(name: string, key: string): SecretForms {
  const hex = key.slice(2).toLowerCase();
  const bytes = Buffer.from(hex, 'hex');
  const upper = hex.toUpperCase();
  return {
    name,
    texts: [...new Set([`0x${hex}`, hex, `0x${upper}`, upper, `0X${upper}`, hex.slice(20, 44), upper.slice(20, 44), ...base64Forms(bytes), BigInt(`0x${hex}`).toString(10)])],
    bytes: [bytes],
  };
}

/** A JWT: whole, its signature part (base64url, and re-encoded as base64), and the signature's raw bytes. */
export function jwtForms(name: string, jwt: string): SecretForms {
  const signature = jwt.split('.')[2]!;
  const raw = Buffer.from(signature, 'base64url');
  return { name, texts: [...new Set([jwt, signature, ...base64Forms(raw)])], bytes: [raw] };
}

/** `what: secret (form)` for each form of each secret found in `text` (or `bytes`), for a readable failure. */
export function findSecrets(what: string, text: string, secrets: readonly SecretForms[], bytes?: Buffer): string[] {
  const found: string[] = [];
  const lower = text.toLowerCase();
  for (const secret of secrets) {
    for (const form of secret.texts) {
      // Hex forms are matched whatever their case; base64 and JWT forms exactly.
      const hit = /^(0x)?[0-9a-f]+$/i.test(form) ? lower.includes(form.toLowerCase()) : text.includes(form);
      if (hit) found.push(`${what}: ${secret.name} (${form.slice(0, 6)}…, ${form.length} chars)`);
    }
    if (bytes !== undefined) for (const form of secret.bytes) if (bytes.includes(form)) found.push(`${what}: ${secret.name} (raw ${form.length} bytes)`);
  }
  return found;
}

/** Anything shaped like a JWT (`eyJ…` header and payload, three base64url parts). */
export const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{8,}/g;
