/**
 * A second thread that computes secp256k1 digest signatures, so the thread that asked does other
 * work meanwhile (the engine makes the request's plan durable: docs/execution.md "The pipeline").
 * The signature is the same as viem's `sign` (the same @noble/curves call: RFC 6979, low-s), and
 * `finish` returns it synchronously: nothing else of the caller's runs in between, which keeps a
 * virtual-time run as deterministic as signing in place.
 *
 * One thread per process, shared by every key, started on first use and never keeping the process
 * alive. The caller and the thread hand over one job at a time through shared memory:
 *
 *   words[JOB]  the job's number, bumped by `begin` (the thread waits on it)
 *   words[DONE] the number of the last job finished (the caller waits on it)
 *   words[FAIL] 1 when that job failed (a key the curve refuses)
 *   bytes       the key (32) and digest (32) in, the signature r ‖ s ‖ recovery (65) out
 *
 * Both sides spin a little before sleeping on a futex: a signature takes a few hundred microseconds
 * and a thread's wake-up costs tens of them, which is the whole gain on the engine's critical path.
 * The key crosses into memory shared with that thread only, never into a message, a log or an error.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BaseError } from '../core/base-error.ts';
import type { Hex } from './encoding.ts';

const JOB = 0;
const DONE = 1;
const FAIL = 2;
const READY = 3;
const WORDS = 4;
const KEY_AT = 0;
const DIGEST_AT = 32;
const SIGNATURE_AT = 64;
const BYTES = 32 + 32 + 65;

/** How long each side spins before sleeping (ms of wall time): longer than one signature. */
const SPIN_MS = 2;
/** A thread not ready, or a job not done, by then means the thread is gone: callers sign in place from then on. */
const GIVE_UP_MS = 5_000;

/** The thread's code (CommonJS, evaluated): sign each job with noble's secp256k1, as viem does. */
const THREAD_SOURCE = `
const { workerData } = require('node:worker_threads');
const { secp256k1 } = require(workerData.noble);
const words = new Int32Array(workerData.shared, 0, ${WORDS});
const bytes = new Uint8Array(workerData.shared, ${WORDS * 4}, ${BYTES});
let seen = Atomics.load(words, ${JOB});
Atomics.store(words, ${READY}, 1);
Atomics.notify(words, ${READY});
for (;;) {
  const until = performance.now() + ${SPIN_MS};
  while (Atomics.load(words, ${JOB}) === seen && performance.now() < until);
  if (Atomics.load(words, ${JOB}) === seen) Atomics.wait(words, ${JOB}, seen);
  seen = Atomics.load(words, ${JOB});
  let failed = 0;
  try {
    const signature = secp256k1.sign(bytes.subarray(${DIGEST_AT}, ${DIGEST_AT + 32}), bytes.subarray(${KEY_AT}, ${KEY_AT + 32}), { lowS: true, extraEntropy: false });
    bytes.set(signature.toCompactRawBytes(), ${SIGNATURE_AT});
    bytes[${SIGNATURE_AT + 64}] = signature.recovery;
  } catch {
    failed = 1;
  }
  bytes.fill(0, ${KEY_AT}, ${KEY_AT + 32});
  Atomics.store(words, ${FAIL}, failed);
  Atomics.store(words, ${DONE}, seen);
  Atomics.notify(words, ${DONE});
}
`;

interface Thread {
  readonly words: Int32Array;
  readonly bytes: Uint8Array;
  /** The last job begun. */
  job: number;
  ready: boolean;
}

let thread: Thread | undefined;
let unavailable = false;

/** Starts the shared thread now (it takes a few tens of milliseconds to be ready). */
export function startSigningThread(): void {
  sharedThread();
}

/** The shared thread, started on first use; undefined where threads cannot start (then callers sign in place). */
function sharedThread(): Thread | undefined {
  if (thread !== undefined || unavailable) return thread;
  try {
    const shared = new SharedArrayBuffer(WORDS * 4 + BYTES);
    // viem's own @noble/curves: the library whose signatures these must equal.
    const noble = createRequire(createRequire(import.meta.url).resolve('viem')).resolve('@noble/curves/secp256k1');
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { shared, noble }, stdout: true, stderr: true });
    worker.unref();
    const started: Thread = { words: new Int32Array(shared, 0, WORDS), bytes: new Uint8Array(shared, WORDS * 4, BYTES), job: 0, ready: false };
    worker.on('error', () => {
      if (thread === started) thread = undefined;
      unavailable = true;
    });
    thread = started;
  } catch {
    unavailable = true;
  }
  return thread;
}

/** A signature being computed on the signing thread. */
export interface PendingSignature {
  /** Waits for it: 65 bytes `r ‖ s ‖ v` (v 27/28), lowercase hex. Throws PROTOCOL_SIGNATURE_INVALID if the thread failed or is gone. */
  finish(): Hex;
}

const hexDigits = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function writeHex(target: Uint8Array, at: number, hex: string): void {
  for (let i = 0; i < 32; i++) target[at + i] = Number.parseInt(hex.slice(2 + i * 2, 4 + i * 2), 16);
}

/** Waits until `words[index]` is `value` (spinning first); false when the thread gave no sign of life in time (it is then given up). */
function awaitWord(words: Int32Array, index: number, value: number, spinMs: number): boolean {
  const spinUntil = performance.now() + spinMs;
  while (Atomics.load(words, index) !== value && performance.now() < spinUntil);
  const giveUpAt = performance.now() + GIVE_UP_MS;
  for (let seen = Atomics.load(words, index); seen !== value; seen = Atomics.load(words, index)) {
    const left = giveUpAt - performance.now();
    if (left <= 0) {
      thread = undefined;
      unavailable = true;
      return false;
    }
    Atomics.wait(words, index, seen, left);
  }
  return true;
}

/**
 * Starts signing `digest` with `privateKey` on the signing thread; undefined where the thread is
 * unavailable (sign in place then). The first call waits for the thread to be ready, so a run
 * signs the same way from its first intent on; a job begun and never finished is waited for.
 *
 * @example
 * const pending = beginDigestSignature(key, digest); // then journal, while it signs
 * const signature = pending?.finish() ?? (await account.sign({ hash: digest }));
 */
export function beginDigestSignature(privateKey: Hex, digest: Hex): PendingSignature | undefined {
  const current = sharedThread();
  if (current === undefined) return undefined;
  const { words, bytes } = current;
  if (!current.ready && !(current.ready = awaitWord(words, READY, 1, 0))) return undefined;
  if (Atomics.load(words, DONE) !== current.job && !awaitWord(words, DONE, current.job, SPIN_MS)) return undefined;
  writeHex(bytes, KEY_AT, privateKey);
  writeHex(bytes, DIGEST_AT, digest);
  const job = (current.job += 1);
  Atomics.store(words, JOB, job);
  Atomics.notify(words, JOB);
  return {
    finish(): Hex {
      if (current.job !== job || thread !== current) throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'the signing thread moved on to another job');
      if (!awaitWord(words, DONE, job, SPIN_MS)) throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'the signing thread did not answer');
      if (Atomics.load(words, FAIL) === 1) throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'the signing thread refused the key or digest');
      let hex = '0x';
      for (let i = SIGNATURE_AT; i < SIGNATURE_AT + 64; i++) hex += hexDigits[bytes[i]!];
      return `${hex}${bytes[SIGNATURE_AT + 64] === 1 ? '1c' : '1b'}` as Hex;
    },
  };
}
