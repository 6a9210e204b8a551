/**
 * `clobbot orders <wallet> [--market <SYMBOL>] [--since <time>] [--type <event type>]
 * [--config <run file> | --venue-url <url>] [--json]`: a user's order events (`GET
 * {user_url}/api/v3/{user}/user/order-events`) from a time to now, read by the order-events reader
 * (timestamp windows as the cursor, de-duplicated: docs/clients.md "Order events"), oldest first,
 * amounts in human units.
 *
 * Exit 0 with the events (none is an answer too); 2 for a usage mistake or a refused query; 1 when
 * the server cannot be reached or fails.
 */
import { BaseError } from '../../core/base-error.ts';
import { ORDER_EVENT_TYPES, type OrderEventType } from '../../protocol/constants.ts';
import { createOrderEventsClient } from '../../clients/order-events-client.ts';
import { orderEvents, type OrderEventsCursor, type ReceivedOrderEvent } from '../../clients/order-events.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { DATA_RETRY, DATA_TARGET_USAGE, reportDataError, resolveDataTarget } from './data-hosts.ts';
import { formatTable } from './market.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Without --since: the last hour. */
const DEFAULT_SINCE_SEC = 3_600;

const usageError = (message: string) => new BaseError('CLI_USAGE', `orders: ${message}`, { details: { command: 'orders' } });

/**
 * `--since`: an ISO 8601 time, Unix seconds, or an age (`90s`, `30m`, `2h`, `7d`) before `nowMs`.
 * Returns Unix seconds.
 *
 * @example parseSince('2h', Date.UTC(2026, 0, 1, 12)) // Date.UTC(2026, 0, 1, 10) / 1000
 */
export function parseSince(text: string, nowMs: number): number {
  const age = /^([0-9]{1,9})(s|m|h|d)$/.exec(text);
  if (age !== null) {
    const unit = { s: 1, m: 60, h: 3_600, d: 86_400 }[age[2] as 's' | 'm' | 'h' | 'd'];
    return Math.max(0, Math.floor(nowMs / 1000) - Number(age[1]) * unit);
  }
  if (/^[0-9]{1,11}$/.test(text)) return Number(text);
  const ms = /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms) || ms < 0) throw usageError(`--since ${JSON.stringify(text.slice(0, 40))}: expected an ISO time (2026-01-01T12:00:00Z), Unix seconds, or an age such as 30m, 2h, 7d`);
  return Math.floor(ms / 1000);
}

/** One event as a row: what happened, on which market, at what size and price (human decimals). */
export interface OrderEventRow {
  readonly time: string;
  readonly eventType: OrderEventType;
  readonly market: string;
  readonly marketAddress: string;
  readonly side: 'BUY' | 'SELL';
  readonly orderId: string;
  /** created: its size; canceled: what was left; trade: what filled. */
  readonly size: string;
  /** created and canceled: its price; trade: the fill price. */
  readonly price: string;
  readonly transactionHash: string;
}

export function orderEventRow(received: ReceivedOrderEvent): OrderEventRow {
  const { event, amounts } = received;
  const data = event.eventData;
  const [size, price] =
    amounts.eventType === 'trade'
      ? [amounts.filledSize, amounts.fillPrice]
      : amounts.eventType === 'order-canceled'
        ? [amounts.remainingSize, amounts.price]
        : [amounts.size, amounts.price];
  return {
    time: new Date(received.timeMs).toISOString(),
    eventType: event.eventType,
    market: `${data.baseToken.symbol}_${data.quoteToken.symbol}`,
    marketAddress: data.marketAddress.toLowerCase(),
    side: data.isBuy ? 'BUY' : 'SELL',
    orderId: data.orderId,
    size: size.toFixed(),
    price: price.toFixed(),
    transactionHash: event.transactionHash,
  };
}

export function ordersText(header: string, rows: readonly OrderEventRow[]): string {
  const table = formatTable(
    ['TIME', 'EVENT', 'MARKET', 'SIDE', 'ORDER', 'SIZE', 'PRICE', 'TX'],
    rows.map((row) => [row.time, row.eventType, row.market, row.side, row.orderId, row.size, row.price, `${row.transactionHash.slice(0, 10)}…`]),
    ['left', 'left', 'left', 'left', 'right', 'right', 'right', 'left'],
  );
  return `${header}\n${table}`;
}

async function runOrders(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: 'orders',
    options: {
      market: { type: 'string' },
      since: { type: 'string' },
      type: { type: 'string' },
      config: { type: 'string' },
      'venue-url': { type: 'string' },
      json: { type: 'boolean' },
    },
    positionals: ['wallet'],
  });
  const user = positionals[0]!;
  if (!ADDRESS.test(user)) throw usageError('<wallet> must be an address (0x and 40 hex digits)');
  const eventType = values.type;
  if (eventType !== undefined && !(ORDER_EVENT_TYPES as readonly string[]).includes(eventType)) throw usageError(`--type must be one of ${ORDER_EVENT_TYPES.join(', ')}`);
  const target = await resolveDataTarget(io, 'orders', values);
  const userUrl = target.host('userUrl');
  const nowMs = target.context.clock.now();
  const fromTimestamp = values.since === undefined ? Math.floor(nowMs / 1000) - DEFAULT_SINCE_SEC : parseSince(values.since, nowMs);
  try {
    let market: string | undefined;
    if (values.market !== undefined) {
      const markets = await target.markets();
      const found = markets.find((candidate) => candidate.symbol === values.market!.toUpperCase());
      if (found === undefined) {
        throw usageError(`unknown market ${JSON.stringify(values.market.slice(0, 40))} on ${target.from}${markets.length === 0 ? '' : ` (known: ${markets.map((m) => m.symbol).join(', ')})`}`);
      }
      market = found.address;
    }
    const client = createOrderEventsClient(target.context, { baseUrl: userUrl, retry: DATA_RETRY });
    const rows: OrderEventRow[] = [];
    let cursor: OrderEventsCursor = { fromTimestamp, seen: [] };
    // One pass from --since to now, every window complete, following the reader's cursor.
    for await (const batch of orderEvents(client, { user, fromTimestamp, follow: false, ...(market === undefined ? {} : { market }), ...(eventType === undefined ? {} : { eventType: eventType as OrderEventType }) })) {
      for (const event of batch.events) rows.push(orderEventRow(event));
      cursor = batch.cursor;
    }
    const since = new Date(fromTimestamp * 1000).toISOString();
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify({ user: user.toLowerCase(), market: values.market?.toUpperCase() ?? null, marketAddress: market ?? null, since, events: rows, cursor })}\n`);
    } else {
      const header = `order events of ${user.toLowerCase()}${values.market === undefined ? '' : ` on ${values.market.toUpperCase()}`} since ${since}: ${rows.length}`;
      io.stdout.write(`${ordersText(header, rows)}\n`);
    }
    return ExitCode.ok;
  } catch (error) {
    return reportDataError(io, error, 'user-data', userUrl);
  }
}

export const ordersCommand: Command = {
  name: 'orders',
  summary: "print a wallet's order events (created, canceled, trades) since a time, as a table or JSON",
  usage: [
    'clobbot orders <wallet> [--market <SYMBOL>] [--since <time>] [--type <event type>] [--config <run file> | --venue-url <url>] [--json]',
    '',
    '  <wallet>             the user: the account owner or its trading wallet',
    '  --market <SYMBOL>    only this market (BASE_QUOTE, e.g. MON_USDC)',
    '  --since <time>       from: an ISO time, Unix seconds, or an age such as 30m, 2h, 7d (default 1h)',
    `  --type <t>           only ${ORDER_EVENT_TYPES.join(', ')}`,
    ...DATA_TARGET_USAGE,
    '  --json               the events (oldest first) and the cursor as one JSON object',
    '',
    'Reads every event from --since to now by timestamp windows, de-duplicated (docs/clients.md, "Order events").',
    'Exit 0 with the events; 2 for a usage mistake or a refused query; 1 when the server cannot be reached or fails.',
  ].join('\n'),
  run: runOrders,
};
