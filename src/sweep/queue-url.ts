/**
 * The `--queue` of `clobbot sweep` and `clobbot worker`: the Redis server that holds the sweep's
 * BullMQ queue, `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS). The URL may carry
 * a password: only its `shown` form, password redacted, goes into messages, progress lines and errors.
 */
import { BaseError } from '../core/base-error.ts';
import { REDACTED } from '../core/secrets.ts';

export interface QueueLocation {
  /** The URL as given, password included: for the connection only. */
  readonly url: string;
  /** The URL with its password redacted: for anything printed. */
  readonly shown: string;
}

const FORM = 'redis://[[user]:password@]host[:port][/db] or rediss://… (TLS)';

/**
 * @example parseQueueUrl('redis://:s3cret@10.0.0.5:6379/2', 'sweep').shown // 'redis://:[redacted]@10.0.0.5:6379/2'
 */
export function parseQueueUrl(text: string, command: string): QueueLocation {
  // The value is never echoed: a malformed URL may still hold a password.
  const refuse = (problem: string) => new BaseError('CLI_USAGE', `${command}: --queue must be ${FORM}: ${problem}`, { details: { command } });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw refuse(`the scheme is ${JSON.stringify(url.protocol.slice(0, 12))}, not redis: or rediss:`);
  if (url.hostname === '') throw refuse('no host');
  if (!/^(?:\/(?:0|[1-9][0-9]{0,3})?)?$/.test(url.pathname)) throw refuse('the path must be a database number (/0, /1, …)');
  if (url.search !== '' || url.hash !== '') throw refuse('no query or fragment is allowed');
  const credentials = url.username === '' && url.password === '' ? '' : `${url.username}${url.password === '' ? '' : `:${REDACTED}`}@`;
  return { url: url.href, shown: `${url.protocol}//${credentials}${url.host}${url.pathname}` };
}
