/**
 * Terminal outcomes read from receipts: viem's public client (`getTransactionReceipt`) over the
 * network's JSON-RPC endpoint (`rpcUrl`), polled on the clock until the receipt exists or a
 * deadline passes. Used by the REST transport (REST answers carry no outcome) and by whoever
 * reconciles a request whose WebSocket outcome was lost.
 *
 * The JSON-RPC calls go through the clients' HTTP transport seam (a viem `custom` transport), so
 * their timeouts run on the clock and tests see every request.
 */
import { TransactionReceiptNotFoundError, type PublicClient, type TransactionReceipt } from 'viem';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Logger } from '../core/logger.ts';
import type { OutcomeStatus } from '../protocol/constants.ts';
import type { Hex } from '../protocol/encoding.ts';
import { isClientError } from '../clients/client-error.ts';
import type { ClientContext } from '../clients/send-request.ts';
import { createRpcPublicClient } from '../clients/rpc-public-client.ts';

/** Status of an outcome on any transport: the relay's three, or UNRESOLVED when no receipt came by the deadline. */
export type TransportOutcomeStatus = OutcomeStatus | 'UNRESOLVED';

/** A terminal outcome (or the lack of one by the deadline) of one relay request. */
export interface TransportOutcome {
  readonly requestId: string;
  readonly txHash: Hex;
  /** CONFIRMED, REVERTED, DROPPED (WebSocket only), or UNRESOLVED: no receipt by the deadline, reconcile. */
  readonly status: TransportOutcomeStatus;
  readonly blockNumber: bigint | null;
  readonly reason: string | null;
  /** `ws`: the relay's outcome message; `receipt`: read from the chain. */
  readonly via: 'ws' | 'receipt';
  /** The WebSocket connection it came on. */
  readonly connectionId?: number;
}

export interface ReceiptWatcherParameters {
  /** The network's JSON-RPC endpoint. */
  readonly rpcUrl: string;
  /** Poll every this many ms. Default 500. */
  readonly pollMs?: number;
  /** Give up (UNRESOLVED) this long after `watch`. Default 60 000. */
  readonly deadlineMs?: number;
  /** Each JSON-RPC call's timeout. Default 5 000. */
  readonly timeoutMs?: number;
  /** A public client to read with instead of one over `context.transport` (e.g. the engine's). */
  readonly publicClient?: Pick<PublicClient, 'getTransactionReceipt'>;
}

export interface ReceiptWatcher {
  /** Every outcome found (or UNRESOLVED), once per watched request. */
  readonly outcomes$: Observable<TransportOutcome>;
  /** Polls for the receipt of `txHash` until found or `deadlineMs` (default the watcher's). Watching a hash twice is one watch. */
  watch(params: { readonly requestId: string; readonly txHash: Hex; readonly deadlineMs?: number }): void;
  /** One read: the receipt's outcome, or undefined when the chain has none (yet). Throws when the endpoint fails. */
  read(txHash: Hex): Promise<Pick<TransportOutcome, 'status' | 'blockNumber' | 'reason'> | undefined>;
  /** Requests watched and not yet resolved. */
  watching(): number;
  /** Stops polling. Idempotent. */
  stop(): void;
}

function outcomeOf(receipt: Pick<TransactionReceipt, 'status' | 'blockNumber'>): Pick<TransportOutcome, 'status' | 'blockNumber' | 'reason'> {
  return receipt.status === 'success'
    ? { status: 'CONFIRMED', blockNumber: receipt.blockNumber, reason: null }
    : { status: 'REVERTED', blockNumber: receipt.blockNumber, reason: 'the receipt says reverted (the chain keeps no reason)' };
}

interface Watch {
  readonly requestId: string;
  readonly txHash: Hex;
  readonly deadline: number;
  readonly waitMs: number;
  busy: boolean;
}

/**
 * @example
 * const receipts = createReceiptWatcher(context, { rpcUrl });
 * receipts.outcomes$.subscribe((outcome) => engine.onOutcome(outcome));
 * receipts.watch({ requestId, txHash });
 */
export function createReceiptWatcher(context: ClientContext & { readonly logger?: Logger }, params: ReceiptWatcherParameters): ReceiptWatcher {
  const { clock, logger } = context;
  const pollMs = params.pollMs ?? 500;
  const deadlineMs = params.deadlineMs ?? 60_000;
  const client = params.publicClient ?? createRpcPublicClient(context, { rpcUrl: params.rpcUrl, ...(params.timeoutMs === undefined ? {} : { timeoutMs: params.timeoutMs }) });
  const outcomes$ = new Subject<TransportOutcome>();
  const watches = new Map<Hex, Watch>();
  let timer: Subscription | undefined;
  let stopped = false;

  const read = async (txHash: Hex) => {
    try {
      return outcomeOf(await client.getTransactionReceipt({ hash: txHash }));
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    }
  };

  const finish = (watch: Watch, outcome: Pick<TransportOutcome, 'status' | 'blockNumber' | 'reason'>) => {
    if (watches.get(watch.txHash) !== watch) return;
    watches.delete(watch.txHash);
    outcomes$.next({ requestId: watch.requestId, txHash: watch.txHash, ...outcome, via: 'receipt' });
  };

  const poll = (watch: Watch) => {
    if (watch.busy) return;
    watch.busy = true;
    read(watch.txHash).then(
      (outcome) => {
        watch.busy = false;
        if (!stopped && outcome !== undefined) finish(watch, outcome);
      },
      (error: unknown) => {
        watch.busy = false;
        // A failing endpoint is tried again at the next tick, until the deadline.
        if (!isClientError(error)) logger?.debug({ err: error, txHash: watch.txHash }, 'receipt read failed');
        else logger?.warn({ err: error, txHash: watch.txHash }, 'receipt read failed');
      },
    );
  };

  const tick = () => {
    timer = undefined;
    if (stopped) return;
    const now = clock.now();
    for (const watch of [...watches.values()]) {
      if (now >= watch.deadline) finish(watch, { status: 'UNRESOLVED', blockNumber: null, reason: `no receipt within ${watch.waitMs} ms: reconcile` });
      else poll(watch);
    }
    if (watches.size > 0) timer = clock.scheduler.schedule(tick, pollMs);
  };

  return {
    outcomes$: outcomes$.asObservable(),
    read,
    watching: () => watches.size,
    watch({ requestId, txHash, deadlineMs: ownDeadline }) {
      if (stopped) return;
      const hash = txHash.toLowerCase() as Hex;
      if (watches.has(hash)) return;
      const waitMs = ownDeadline ?? deadlineMs;
      const watch: Watch = { requestId, txHash: hash, deadline: clock.now() + waitMs, waitMs, busy: false };
      watches.set(hash, watch);
      poll(watch);
      timer ??= clock.scheduler.schedule(tick, pollMs);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      timer?.unsubscribe();
      timer = undefined;
      watches.clear();
      outcomes$.complete();
    },
  };
}
