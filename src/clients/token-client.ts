/**
 * Token metadata (`GET {base_url}/api/v1/tokens/{tokenAddress}`, spec): one supported token. A read:
 * timeout on the clock, AbortSignal, retries after no answer, a 5xx or a 429.
 */
import type { Address } from '../protocol/encoding.ts';
import { tokenEnvelopeSchema, type Token } from '../protocol/tokens.ts';
import type { CallOptions } from './market-data-source.ts';
import { describeCall, parseBody, unexpectedAnswer } from './response-body.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';

export interface TokenClientParameters {
  /** `{base_url}`. */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

export interface TokenClient {
  /** The metadata of `tokenAddress` (any case; sent lowercase, as the spec requires). */
  token(tokenAddress: Address | string, options?: CallOptions): Promise<Token>;
}

/**
 * @example
 * const tokens = createTokenClient(context, { baseUrl: network.hosts.baseUrl });
 * const { decimals } = await tokens.token('0x…');
 */
export function createTokenClient(context: ClientContext, params: TokenClientParameters): TokenClient {
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const retry = params.retry ?? DEFAULT_RETRY_POLICY;
  return {
    async token(tokenAddress, options = {}) {
      const url = `${baseUrl}/api/v1/tokens/${encodeURIComponent(tokenAddress.toLowerCase())}`;
      const response = await sendRequest(context, {
        request: { method: 'GET', url, headers: { accept: 'application/json' } },
        idempotent: true,
        timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        retry,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const where = describeCall('GET', url);
      if (response.status !== 200) throw unexpectedAnswer(response, where, context.clock.now());
      return parseBody(response, { schema: tokenEnvelopeSchema, where }).data;
    },
  };
}
