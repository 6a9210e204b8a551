/**
 * What an account holds, for `clobbot account status|balances`: its open orders per market (the
 * user-data API), what they lock by the venue's rule, and its free balances read from the chain (the
 * account core's getBalanceById, eth_call), in human units per token of the run file's markets.
 */
import { Decimal } from '../../core/decimal.ts';
import type { ResolvedNetwork } from '../../config/network-config.ts';
import type { Address } from '../../protocol/encoding.ts';
import { amountScale, restingLockRaw, type AmountScale, type TokenSpec } from '../../protocol/market-spec.ts';
import type { ActiveOrder } from '../../protocol/user-data.ts';
import { createActiveOrdersClient } from '../../clients/active-orders-client.ts';
import { createChainReader } from '../../clients/chain-reader.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { formatTable } from './market.ts';

/** The lock rule of a market whose tokens, precisions and maker fee are all given. */
export function lockRuleOf(market: {
  readonly baseToken: TokenSpec;
  readonly quoteToken: TokenSpec;
  readonly pricePrecision?: bigint | undefined;
  readonly sizePrecision?: bigint | undefined;
  readonly makerFeePps?: bigint | undefined;
}): MarketRef['lockRule'] {
  const { baseToken, quoteToken, pricePrecision, sizePrecision, makerFeePps } = market;
  if (pricePrecision === undefined || sizePrecision === undefined || makerFeePps === undefined) return undefined;
  return { scale: amountScale({ baseToken, quoteToken, pricePrecision, sizePrecision }), makerFeePps };
}

export interface MarketRef {
  readonly symbol: string;
  readonly address: Address;
  readonly base: string;
  readonly quote: string;
  /** The tokens, when the venue publishes them (sim) or the run file gives the market whole. */
  readonly tokens: { readonly base: TokenSpec; readonly quote: TokenSpec } | undefined;
  /** What its open orders lock, by the venue's rule, when the precisions and fee are known (the sim publishes them). */
  readonly lockRule: { readonly scale: AmountScale; readonly makerFeePps: bigint } | undefined;
}

export function humanOrder(order: ActiveOrder): { side: string; price: Decimal; remaining: Decimal; size: Decimal } {
  const sizePrecision = new Decimal(order.sizeprecision);
  return {
    side: order.isbuy ? 'BUY' : 'SELL',
    price: new Decimal(order.price).div(order.priceprecision),
    remaining: new Decimal(order.remainingsize).div(sizePrecision),
    size: new Decimal(order.size).div(sizePrecision),
  };
}

/** One token's balances, human units: free from the chain (undefined when it cannot be read), locked by open orders. */
export interface BalanceRow {
  readonly token: string;
  readonly address: Address | undefined;
  readonly free: Decimal | undefined;
  readonly locked: Decimal;
  /** Why `free` is unknown. */
  readonly note: string | undefined;
}

/**
 * The account's open orders per market (user-data API) and its balances per token of the run's
 * markets: free from the chain (the account core's balance view, eth_call), locked computed from the
 * open orders by the venue's rule.
 */
export async function accountHoldings(
  venue: { readonly context: ClientContext; readonly network: ResolvedNetwork; readonly accountCore: Address | undefined; readonly markets: readonly MarketRef[] },
  owner: Address,
  accountId: bigint | undefined,
): Promise<{ active: Map<string, readonly ActiveOrder[]>; balances: BalanceRow[] }> {
  const { network, context, accountCore } = venue;
  const client = createActiveOrdersClient(context, { baseUrl: network.hosts.userUrl! });
  const chain = accountCore === undefined ? undefined : createChainReader(context, { rpcUrl: network.hosts.rpcUrl!, accountCore });
  const active = new Map<string, readonly ActiveOrder[]>();
  const tokens = new Map<string, { token: TokenSpec | undefined; lockedRaw: bigint; lockedHuman: Decimal }>();
  const tokenEntry = (symbol: string, token: TokenSpec | undefined) => {
    let entry = tokens.get(symbol);
    if (entry === undefined) tokens.set(symbol, (entry = { token, lockedRaw: 0n, lockedHuman: new Decimal(0) }));
    return entry;
  };
  for (const market of venue.markets) {
    const { orders } = await client.activeOrders({ user: owner, marketAddress: market.address });
    active.set(market.symbol, orders);
    const rule = market.lockRule;
    const base = tokenEntry(market.base, market.tokens?.base);
    const quote = tokenEntry(market.quote, market.tokens?.quote);
    for (const order of orders) {
      const side = order.isbuy ? 'BUY' : 'SELL';
      const into = side === 'BUY' ? quote : base;
      if (rule === undefined) {
        const human = humanOrder(order);
        into.lockedHuman = into.lockedHuman.add(side === 'BUY' ? human.remaining.mul(human.price) : human.remaining);
      } else {
        into.lockedRaw += restingLockRaw(rule, rule.scale, side, BigInt(order.price), BigInt(order.remainingsize));
      }
    }
  }
  const balances: BalanceRow[] = [];
  for (const [symbol, { token, lockedRaw, lockedHuman }] of tokens) {
    const human = (raw: bigint) => new Decimal(raw.toString()).div(new Decimal(10).pow(token!.decimals));
    const locked = token === undefined ? lockedHuman : human(lockedRaw).add(lockedHuman);
    let free: Decimal | undefined;
    let note: string | undefined;
    if (token === undefined) note = 'token not known: give the market whole in the run file';
    else if (accountId === undefined) note = 'account id not known';
    else if (chain === undefined) note = 'the account core is not known: pass --account-core';
    else {
      try {
        free = human(await chain.freeBalance(accountId, token.address));
      } catch (error) {
        note = `the chain did not answer (${error instanceof Error ? error.message.split('\n')[0]!.slice(0, 80) : 'error'})`;
      }
    }
    balances.push({ token: symbol, address: token?.address, free, locked, note });
  }
  return { active, balances };
}

export function balanceTable(rows: readonly BalanceRow[]): string {
  return formatTable(
    ['TOKEN', 'FREE', 'LOCKED', 'TOTAL', ''],
    rows.map((row) => [row.token, row.free?.toFixed() ?? '?', row.locked.toFixed(), row.free === undefined ? '?' : row.free.add(row.locked).toFixed(), row.note ?? '']),
    ['left', 'right', 'right', 'right', 'left'],
  );
}
