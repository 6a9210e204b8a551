/**
 * Records a bot's market data as it arrives: an HttpTransport wrapped around the market-data
 * client's, which hands each depth, trades and ticker answer (exactly as received, with the local
 * receive time on the clock) to the raw recording of its symbol. Requests pass through unchanged.
 */
import type { Clock } from '../core/clock.ts';
import type { HttpResponse, HttpTransport } from '../clients/http-transport.ts';
import type { RawFeedWriter } from './raw-feed-writer.ts';
import type { RawRecordKind } from './raw-feed-format.ts';

const SOURCES: ReadonlyMap<string, RawRecordKind> = new Map([
  ['/api/v3/depth', 'depth'],
  ['/api/v3/trades', 'trades'],
  ['/api/v3/ticker/24hr', 'ticker'],
]);

/** What was asked of a source, as the record's meta (no spaces: see raw-feed-format.ts). */
function metaOf(kind: RawRecordKind, query: URLSearchParams): string {
  if (kind === 'depth') return JSON.stringify({ state: query.get('state') ?? 'committed', limit: Number(query.get('limit') ?? 100) });
  if (kind === 'trades') return query.has('limit') ? JSON.stringify({ limit: Number(query.get('limit')) }) : '{}';
  return '{}';
}

/** The last trade id of a trades answer, and whether it skipped ids after `after`. */
function tradeIds(body: string, after: number | undefined): { last: number | undefined; gap: boolean } {
  try {
    const trades = JSON.parse(body) as { id?: unknown }[];
    const ids = trades.map((trade) => Number(trade.id)).filter(Number.isSafeInteger);
    if (ids.length === 0) return { last: after, gap: false };
    const first = Math.min(...ids);
    const last = Math.max(...ids);
    return { last: Math.max(last, after ?? last), gap: after !== undefined && first > after + 1 };
  } catch {
    return { last: after, gap: false };
  }
}

/**
 * @example
 * const transport = tapMarketData(venue.transport, (symbol) => recorders.get(symbol), clock);
 * const market = createMarketDataClient({ ...context, transport }, { baseUrl });
 */
export function tapMarketData(inner: HttpTransport, recorderOf: (symbol: string) => RawFeedWriter | undefined, clock: Pick<Clock, 'now'>): HttpTransport {
  const lastTradeId = new Map<string, number>();
  return async (request) => {
    const queryAt = request.url.indexOf('?');
    const path = new URL(request.url).pathname;
    const kind = request.method === 'GET' ? SOURCES.get(path) : undefined;
    if (kind === undefined) return inner(request);
    const query = new URLSearchParams(queryAt < 0 ? '' : request.url.slice(queryAt + 1));
    const symbol = query.get('symbol') ?? '';
    const recorder = recorderOf(symbol);
    if (recorder === undefined) return inner(request);
    let response: HttpResponse;
    try {
      response = await inner(request);
    } catch (error) {
      recorder.append('fail', clock.now(), JSON.stringify({ source: kind, error: (error as { code?: string }).code ?? 'ERROR' }), 'null');
      recorder.noteGap();
      throw error;
    }
    if (response.status !== 200) {
      recorder.append('fail', clock.now(), JSON.stringify({ source: kind, status: response.status }), 'null');
      recorder.noteGap();
      return response;
    }
    recorder.append(kind, clock.now(), metaOf(kind, query), response.text);
    if (kind === 'trades') {
      const { last, gap } = tradeIds(response.text, lastTradeId.get(symbol));
      if (last !== undefined) lastTradeId.set(symbol, last);
      if (gap) recorder.noteGap();
    }
    return response;
  };
}
