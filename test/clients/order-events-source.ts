/**
 * A scripted order-events host for the cursoring tests: it honours `limit`, `offset`, `fromTimestamp`,
 * `toTimestamp`, `eventType` and `marketAddress` exactly as the spec says (newest first, both bounds
 * inclusive, `from < to` required), shows an event only once it is "indexed" (its `visibleAtMs` on
 * the clock), and counts the requests.
 */
import type { OrderEventsClient, OrderEventsPage, OrderEventsPageParameters } from '../../src/clients/order-events-client.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { OrderEventType } from '../../src/protocol/constants.ts';
import { orderEventSchema, type OrderEvent } from '../../src/protocol/user-data.ts';

export const USER = '0x00000000000000000000000000000000000000aa';
export const MARKET = '0x00000000000000000000000000000000000000bb';
const TOKEN = (address: string, symbol: string, decimal: number) => ({ address, name: symbol, symbol, decimal, logoUrl: null });

/** An order event of `type` at `timeMs`; `n` makes its transaction hash and order id unique. */
export function makeEvent(n: number, timeMs: number, type: OrderEventType = 'order-created', extra: { orderId?: string; txN?: number; updatedSize?: string } = {}): OrderEvent {
  const base = {
    orderId: extra.orderId ?? String(n),
    marketAddress: MARKET,
    owner: USER,
    isBuy: n % 2 === 0,
    sizePrecision: '100',
    pricePrecision: '10000',
    baseToken: TOKEN('0x00000000000000000000000000000000000000c1', 'MON', 18),
    quoteToken: TOKEN('0x00000000000000000000000000000000000000c2', 'USDC', 6),
  };
  const eventData =
    type === 'order-created'
      ? { ...base, size: '250', price: '12345', baseDeposited: '2500000000000000000', baseDepositedInUsd: '3086250000000000000' }
      : type === 'order-canceled'
        ? { ...base, size: '250', remainingSize: '100', price: '12345', basePositionValue: '1000000000000000000', basePositionValueInUsd: '1234500000000000000' }
        : {
            ...base,
            marketId: 1,
            orderSize: '250',
            filledSize: '50',
            fillPrice: '1234500000000000000',
            updatedSize: extra.updatedSize ?? '200',
            baseFilled: '500000000000000000',
            baseFilledInUsd: '617250000000000000',
          };
  return orderEventSchema.parse({
    eventType: type,
    transactionHash: `0x${(extra.txN ?? n).toString(16).padStart(64, '0')}`,
    blockTimestamp: new Date(timeMs).toISOString(),
    eventData,
  });
}

export interface ScriptedEvent {
  readonly event: OrderEvent;
  /** Hidden before this clock time (indexing delay). Default: its own timestamp. */
  readonly visibleAtMs?: number;
}

export interface ScriptedSourceOptions {
  /** How `fromTimestamp`/`toTimestamp` compare: against whole seconds, or against the ms timestamp. Default `ms`. */
  readonly compare?: 'seconds' | 'ms';
  /** The server caps `limit` here whatever the client asks (a stricter real server). */
  readonly maxLimit?: number;
  /** What `pagination.total` says: every match (default), the page's own length, or 0 (a server that does not count). */
  readonly total?: 'all' | 'page' | 'zero';
}

export interface ScriptedSource extends OrderEventsClient {
  readonly calls: OrderEventsPageParameters[];
  add(...events: ScriptedEvent[]): void;
}

export function scriptedSource(clock: Clock, initial: readonly ScriptedEvent[] = [], options: ScriptedSourceOptions = {}): ScriptedSource {
  const events: ScriptedEvent[] = [...initial];
  const calls: OrderEventsPageParameters[] = [];
  const compare = options.compare ?? 'ms';
  return {
    clock,
    calls,
    add: (...more) => events.push(...more),
    async page(params): Promise<OrderEventsPage> {
      calls.push(params);
      const { fromTimestamp: from, toTimestamp: to } = params;
      if (from !== undefined && to !== undefined && from >= to) throw new Error(`fromTimestamp ${from} must be less than toTimestamp ${to}`);
      const now = clock.now();
      const value = (timeMs: number) => (compare === 'ms' ? timeMs : Math.floor(timeMs / 1000) * 1000);
      const matching = events
        .map((scripted, index) => ({ scripted, index, timeMs: Date.parse(scripted.event.blockTimestamp) }))
        .filter(({ scripted, timeMs }) => (scripted.visibleAtMs ?? timeMs) <= now)
        .filter(({ scripted }) => params.eventType === undefined || scripted.event.eventType === params.eventType)
        .filter(({ scripted }) => params.marketAddress === undefined || scripted.event.eventData.marketAddress === params.marketAddress)
        .filter(({ timeMs }) => from === undefined || value(timeMs) >= from * 1000)
        .filter(({ timeMs }) => to === undefined || value(timeMs) <= to * 1000)
        // Newest first; within one time the later-added first (as a database ordered by time, then id, both descending).
        .sort((a, b) => b.timeMs - a.timeMs || b.index - a.index);
      const limit = Math.min(params.limit ?? 50, options.maxLimit ?? Number.POSITIVE_INFINITY);
      const offset = params.offset ?? 0;
      const served = matching.slice(offset, offset + limit).map(({ scripted }) => scripted.event);
      const total = options.total === 'page' ? served.length : options.total === 'zero' ? 0 : matching.length;
      return { events: served, pagination: { total, page: Math.floor(offset / limit) + 1, pageSize: limit } };
    },
  };
}
