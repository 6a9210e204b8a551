/**
 * A viem public client over the network's JSON-RPC endpoint whose calls go through the clients'
 * transport seam (a viem `custom` transport): their timeouts run on the clock, these idempotent
 * reads are retried after no answer, a 5xx or a 429, and tests see every request. Receipts
 * (src/execution/relay-receipts.ts) and the chain reads (chain-reader.ts) read with it.
 */
import { createPublicClient, custom, RpcRequestError, type PublicClient } from 'viem';
import { DEFAULT_RETRY_POLICY } from './retry-policy.ts';
import { sendRequest, type ClientContext } from './send-request.ts';

/**
 * A viem public client over `rpcUrl` whose calls go through the clients' transport seam (clock
 * timeouts, retries of these idempotent reads after no answer, a 5xx or a 429).
 *
 * @example const client = createRpcPublicClient(context, { rpcUrl: network.hosts.rpcUrl! });
 */
export function createRpcPublicClient(context: ClientContext, params: { readonly rpcUrl: string; readonly timeoutMs?: number }): PublicClient {
  let nextId = 1;
  const { rpcUrl } = params;
  const transport = custom(
    {
      async request({ method, params: rpcParams }: { method: string; params?: unknown }) {
        const body = { jsonrpc: '2.0', id: nextId++, method, params: rpcParams ?? [] };
        const response = await sendRequest(context, {
          request: { method: 'POST', url: rpcUrl, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
          idempotent: true,
          timeoutMs: params.timeoutMs ?? 5_000,
          retry: DEFAULT_RETRY_POLICY,
        });
        let json: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
        try {
          json = JSON.parse(response.text) as typeof json;
        } catch {
          throw new RpcRequestError({ body, error: { code: -32700, message: `HTTP ${response.status}: the answer is not JSON` }, url: rpcUrl, status: response.status });
        }
        if (json.error !== undefined) throw new RpcRequestError({ body, error: json.error, url: rpcUrl, status: response.status });
        return json.result ?? null;
      },
    },
    { retryCount: 0 },
  );
  return createPublicClient({ transport }) as PublicClient;
}
