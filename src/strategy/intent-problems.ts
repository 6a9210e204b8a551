/**
 * What the engine and the venue would refuse in an intent, found before it is signed: the strategy
 * host checks every intent a strategy emits with it (STRATEGY_INTENT_INVALID), so a malformed intent
 * stops a run at its source rather than as a rejection from the relay.
 */
import { MAX_PRICE_UNITS, UINT32_MAX } from '../core/units.ts';
import { MAKER_SLOTS, MAX_ARRAY_ITEMS } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import { encodePackedOpsToBytes } from '../protocol/packed-ops.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Intent } from './intents.ts';

/** The slots an intent binds to order ids, in the order of its `expectedOrderIds`. */
export function boundSlots(intent: Intent): number[] {
  if (intent.type === 'ReplaceSlots') return intent.ops.map((op) => op.slotIdx);
  if (intent.type === 'PlaceAndCancel') return [...intent.cancelSlots];
  return [];
}

/** The market an intent names, if one. */
export function intentMarket(intent: Intent): Address | undefined {
  return 'market' in intent ? intent.market : undefined;
}

/**
 * What is wrong with an intent as the engine and the venue read it (empty when nothing): slots
 * below 62 and unique, prices on the tick and in range, sizes in minSize..maxSize, tif rules, not
 * empty; trigger creation is refused (INTENT_NOT_SUPPORTED_LIVE).
 */
export function intentProblems(intent: Intent, spec: MarketSpec | undefined): string[] {
  if (intent.type === 'CreateBatchTrigger' || intent.type === 'CreateReplaceTrigger') return [`INTENT_NOT_SUPPORTED_LIVE: ${intent.type}`];
  if (intent.type === 'CancelTrigger') return [];
  if (intent.type === 'CancelAll') return intent.market !== undefined && spec === undefined ? [`market ${intent.market} is not a market of the strategy`] : [];
  if (spec === undefined) return [`market ${intent.market} is not a market of the strategy`];
  const problems: string[] = [];
  const checkPriceSize = (where: string, price: bigint, size: bigint) => {
    if (typeof price !== 'bigint' || price < 1n || price > MAX_PRICE_UNITS) problems.push(`${where}: price ${price} is outside 1..${MAX_PRICE_UNITS}`);
    else if (price % spec.tickSize !== 0n) problems.push(`${where}: price ${price} is not on the tick ${spec.tickSize}`);
    if (typeof size !== 'bigint' || size < spec.minSize || size > spec.maxSize) problems.push(`${where}: size ${size} is outside ${spec.minSize}..${spec.maxSize}`);
  };
  if (intent.type === 'ReplaceSlots') {
    if (intent.ops.length === 0) problems.push('ReplaceSlots with no ops');
    try {
      encodePackedOpsToBytes(intent.ops);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
    intent.ops.forEach((op, index) => {
      if (op.kind === 'place') checkPriceSize(`ops[${index}] (slot ${op.slotIdx})`, op.price, op.size);
    });
    return problems;
  }
  if (intent.cancelSlots.length === 0 && intent.orders.length === 0) problems.push('PlaceAndCancel with no cancels and no orders');
  if (intent.cancelSlots.length > MAX_ARRAY_ITEMS || intent.orders.length > MAX_ARRAY_ITEMS) problems.push(`more than ${MAX_ARRAY_ITEMS} items`);
  const seen = new Set<number>();
  for (const slot of intent.cancelSlots) {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAKER_SLOTS) problems.push(`cancelSlots: ${slot} is not a maker slot 0..${MAKER_SLOTS - 1}`);
    else if (seen.has(slot)) problems.push(`cancelSlots: slot ${slot} is listed twice`);
    seen.add(slot);
  }
  intent.orders.forEach((order, index) => {
    const where = `orders[${index}]`;
    if (order.side !== 'BUY' && order.side !== 'SELL') problems.push(`${where}: side must be BUY or SELL`);
    checkPriceSize(where, order.price, order.size);
    if (!['GTC', 'IOC', 'FOK'].includes(order.tif)) problems.push(`${where}: tif must be GTC, IOC or FOK`);
    if (order.executionInstruction !== 'NONE' && order.executionInstruction !== 'POST_ONLY') problems.push(`${where}: executionInstruction must be NONE or POST_ONLY`);
    if (order.executionInstruction === 'POST_ONLY' && order.tif !== 'GTC') problems.push(`${where}: POST_ONLY needs GTC`);
    if (typeof order.minSizeAfterBlock !== 'bigint' || order.minSizeAfterBlock < 0n || order.minSizeAfterBlock > UINT32_MAX) {
      problems.push(`${where}: minSizeAfterBlock must be a uint32`);
    } else if (order.tif !== 'GTC' && order.minSizeAfterBlock !== 0n) problems.push(`${where}: ${order.tif} needs minSizeAfterBlock 0`);
  });
  return problems;
}
