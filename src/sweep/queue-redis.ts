/**
 * A connection to the Redis server of a sweep queue, checked before anything is enqueued or taken:
 * an unreachable server, a wrong password or a refused TLS handshake is SWEEP_QUEUE_UNREACHABLE
 * within seconds, where BullMQ alone would retry for ever. Messages name the server by its redacted
 * URL (src/sweep/queue-url.ts).
 */
import { Redis } from 'ioredis';
import type { Subscription } from 'rxjs';
import { BaseError } from '../core/base-error.ts';
import { liveClock } from '../core/clock.ts';
import { scrubKnownSecrets } from '../core/secrets.ts';
import type { TextSink } from '../cli/cli-io.ts';
import type { QueueLocation } from './queue-url.ts';

const passwordOf = (location: QueueLocation) => decodeURIComponent(new URL(location.url).password);

/** How long the first connection may take. */
export const QUEUE_CONNECT_TIMEOUT_MS = 5_000;

/**
 * @example const redis = await connectQueueRedis(parseQueueUrl('redis://127.0.0.1:6379/0', 'sweep')); await redis.ping(); redis.disconnect();
 */
export async function connectQueueRedis(location: QueueLocation, params: { readonly timeoutMs?: number } = {}): Promise<Redis> {
  const timeoutMs = params.timeoutMs ?? QUEUE_CONNECT_TIMEOUT_MS;
  // No retries and no offline queue: the first failure is the answer.
  const redis = new Redis(location.url, { lazyConnect: true, connectTimeout: timeoutMs, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => (lastError = error));
  let timer: Subscription | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => (timer = liveClock.scheduler.schedule(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs)));
    await Promise.race([redis.connect().then(() => redis.ping()), timeout]);
    return redis;
  } catch (error) {
    redis.disconnect();
    const said = (lastError ?? (error instanceof Error ? error : new Error(String(error)))).message.split('\n')[0]!;
    const reason = scrubKnownSecrets(said, [passwordOf(location)]);
    throw new BaseError('SWEEP_QUEUE_UNREACHABLE', `cannot reach the sweep queue's Redis at ${location.shown}: ${reason}`, { details: { queue: location.shown } });
  } finally {
    timer?.unsubscribe();
  }
}

/**
 * A listener for the `error` events of BullMQ's queues and workers (a lost connection, retried by
 * BullMQ until it comes back): each distinct problem is said once, scrubbed of the password.
 *
 * @example queue.on('error', queueProblemReporter(io.stderr, location, 'sweep'));
 */
export function queueProblemReporter(sink: TextSink, location: QueueLocation, who: string): (error: Error) => void {
  const said = new Set<string>();
  const password = passwordOf(location);
  return (error) => {
    const message = scrubKnownSecrets(error.message.split('\n')[0]!, [password]);
    if (said.has(message)) return;
    said.add(message);
    sink.write(`${who}: the queue at ${location.shown}: ${message} (BullMQ retries)\n`);
  };
}
