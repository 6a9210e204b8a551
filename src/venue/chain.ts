/**
 * The venue's chain: a block every `blockMs` on the clock's scheduler (only while started), each
 * holding the transactions submitted since the previous one, executed in submission order.
 *
 * - Block numbers start at 1; block 0 is the genesis (no transactions, the state at creation).
 * - A block's hash is keccak256(abi.encode(chainId, number, parentHash, timestamp, txHashes)):
 *   deterministic, so the same run gives the same hashes.
 * - Consensus states (venue: `proposed`, `voted`, `finalized`, `committed`): a block is proposed
 *   when produced and reaches each later state after the configured number of further blocks.
 * - After each block the chain keeps a snapshot of the state (for the venue: the depth of every
 *   book) for the lag window, so a reader can see the state as of the newest block in each state.
 * - Receipts of the newest MAX_RECEIPTS executed transactions are kept.
 * - `enqueue` refuses a hash already pending or executed; `enqueueUnique` is for hashes unique by
 *   construction (the venue's system transactions: sender prefix and nonce), and skips that check.
 *   Only the unique hashes looked up so far are compared with checked ones: the two kinds never meet
 *   (a keccak hash would have to start with the system sender's 24-byte prefix).
 *
 * The chain knows nothing about what its transactions do: `execute` runs one, `endBlock` closes the
 * block, `snapshot` captures the state after it.
 */
import { interval, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { OrderbookState } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import { invariantBroken } from './invariant.ts';
import { blockHash } from './venue-hashes.ts';

export type TxType = 'DYNAMIC_FEE' | 'SET_CODE';

/** A transaction waiting for (or included in) a block. */
export interface ChainTx<P> {
  readonly hash: Hex;
  readonly from: Address;
  readonly to: Address;
  readonly type: TxType;
  readonly payload: P;
}

export interface BlockHeader {
  readonly number: bigint;
  readonly hash: Hex;
  readonly parentHash: Hex;
  /** Milliseconds since the epoch (the clock's time when the block was produced). */
  readonly timestamp: number;
  /** Hashes of its transactions, in execution order. */
  readonly transactions: readonly Hex[];
}

/** What one transaction did: success, or the reason it reverted; and how many logs it wrote. */
export interface TxExecution {
  readonly success: boolean;
  /** Why it reverted (`CODE: message`); null on success. */
  readonly reason: string | null;
  readonly logCount: number;
}

/** Where a transaction runs: its block and position, and the first log index it may use. */
export interface TxContext {
  readonly block: BlockHeader;
  readonly txIndex: number;
  readonly firstLogIndex: number;
}

export interface ChainReceipt {
  readonly transactionHash: Hex;
  readonly blockNumber: bigint;
  readonly blockHash: Hex;
  readonly transactionIndex: number;
  readonly from: Address;
  readonly to: Address;
  readonly success: boolean;
  readonly type: TxType;
  readonly reason: string | null;
}

/** A produced block with the receipts of its transactions (in order) and its snapshot. */
export interface ProducedBlock<S> {
  readonly header: BlockHeader;
  readonly receipts: readonly ChainReceipt[];
  readonly snapshot: S;
}

/** Blocks after which a block is voted, finalized and committed. */
export interface StateLags {
  readonly voted: number;
  readonly finalized: number;
  readonly committed: number;
}

export interface ChainParameters<P, S> {
  readonly chainId: number;
  readonly blockMs: number;
  readonly stateLagBlocks: StateLags;
  /** The state before the first block (the genesis snapshot). */
  readonly genesis: S;
  /** Runs one transaction of the block being produced. */
  readonly execute: (tx: ChainTx<P>, context: TxContext) => TxExecution;
  /** Closes the block after its transactions; returns how many logs it wrote. */
  readonly endBlock?: (block: BlockHeader, firstLogIndex: number) => number;
  /** The state after the block, kept for the lag window. */
  readonly snapshot: (block: BlockHeader, previous: S) => S;
  /** Called once per block after it was executed and snapshotted. */
  readonly onBlock?: (block: ProducedBlock<S>) => void;
  /** Receipts kept; default MAX_RECEIPTS (tests make it small). */
  readonly maxReceipts?: number;
}

const ZERO_HASH: Hex = `0x${'0'.repeat(64)}`;

/** Receipts kept (the oldest are dropped): enough for any reconciliation, bounded for a long run. */
export const MAX_RECEIPTS = 250_000;


/**
 * The chain of the simulated venue.
 *
 * @example
 * const chain = new Chain({ clock }, { chainId: 31337, blockMs: 400, stateLagBlocks, genesis, execute, snapshot });
 * chain.start();
 * chain.enqueue({ hash, from, to, type: 'DYNAMIC_FEE', payload });
 * clock.advanceBy(400); // block 1 executes it
 */
export class Chain<P, S> {
  private readonly clock: Clock;
  private readonly params: ChainParameters<P, S>;
  private pending: ChainTx<P>[] = [];
  /** Per pending transaction: queued by `enqueueUnique`. */
  private pendingUnique: boolean[] = [];
  private readonly pendingHashes = new Set<Hex>();
  /** The newest blocks (genesis first while it is in the window), oldest first. */
  private readonly recent: { header: BlockHeader; snapshot: S }[];
  /** Receipts kept, in execution order from `oldest` (and whether each tx was queued unique). */
  private log: ChainReceipt[] = [];
  private logUnique: boolean[] = [];
  private oldest = 0;
  /**
   * Kept receipts by hash: every checked transaction's at once, unique ones' (up to log position
   * `indexed`) only when a lookup misses. Hashing every background order's hash into the map was
   * a tenth of the venue's time, and hardly any is ever looked up.
   */
  private readonly receipts = new Map<Hex, ChainReceipt>();
  private indexed = 0;
  private readonly maxReceipts: number;
  private readonly window: number;
  private timer: Subscription | null = null;

  constructor(context: { readonly clock: Clock }, params: ChainParameters<P, S>) {
    this.clock = context.clock;
    this.params = params;
    const { voted, finalized, committed } = params.stateLagBlocks;
    if (!(voted >= 0 && finalized >= voted && committed >= finalized)) {
      invariantBroken('state lags must be voted <= finalized <= committed', { voted, finalized, committed });
    }
    this.window = committed + 1;
    this.maxReceipts = params.maxReceipts ?? MAX_RECEIPTS;
    const genesis: BlockHeader = {
      number: 0n,
      hash: blockHash(params.chainId, 0n, ZERO_HASH, context.clock.now(), []),
      parentHash: ZERO_HASH,
      timestamp: context.clock.now(),
      transactions: [],
    };
    this.recent = [{ header: genesis, snapshot: params.genesis }];
  }

  /** Starts producing a block every `blockMs` on the clock's scheduler. Idempotent. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = interval(this.params.blockMs, this.clock.scheduler).subscribe(() => this.produceBlock());
  }

  /** Stops producing blocks; pending transactions stay pending. Idempotent. */
  stop(): void {
    this.timer?.unsubscribe();
    this.timer = null;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** Queues a transaction for the next block. */
  enqueue(tx: ChainTx<P>): void {
    if (this.pendingHashes.has(tx.hash) || this.receipts.has(tx.hash)) {
      invariantBroken('transaction hash submitted twice', { hash: tx.hash });
    }
    this.pending.push(tx);
    this.pendingUnique.push(false);
    this.pendingHashes.add(tx.hash);
  }

  /**
   * Queues a transaction whose hash is unique by construction (a system transaction's holds its
   * sender's nonce): it skips the duplicate lookups, which the background flow would pay per order.
   */
  enqueueUnique(tx: ChainTx<P>): void {
    this.pending.push(tx);
    this.pendingUnique.push(true);
  }

  /** Transactions waiting for the next block. */
  pendingCount(): number {
    return this.pending.length;
  }

  isPending(hash: Hex): boolean {
    return this.pendingHashes.has(hash) || this.pending.some((tx) => tx.hash === hash);
  }

  /**
   * Produces the next block now (the timer calls this; backtests and tests may too): executes the
   * pending transactions in order, closes the block, snapshots the state.
   */
  produceBlock(): ProducedBlock<S> {
    const parent = this.head();
    const transactions = this.pending;
    const unique = this.pendingUnique;
    this.pending = [];
    this.pendingUnique = [];
    this.pendingHashes.clear();
    const number = parent.number + 1n;
    const timestamp = this.clock.now();
    const hashes = transactions.map((tx) => tx.hash);
    const header: BlockHeader = {
      number,
      hash: blockHash(this.params.chainId, number, parent.hash, timestamp, hashes),
      parentHash: parent.hash,
      timestamp,
      transactions: hashes,
    };
    const receipts: ChainReceipt[] = [];
    let logIndex = 0;
    for (let txIndex = 0; txIndex < transactions.length; txIndex++) {
      const tx = transactions[txIndex]!;
      const result = this.params.execute(tx, { block: header, txIndex, firstLogIndex: logIndex });
      logIndex += result.logCount;
      const receipt: ChainReceipt = {
        transactionHash: tx.hash,
        blockNumber: number,
        blockHash: header.hash,
        transactionIndex: txIndex,
        from: tx.from,
        to: tx.to,
        success: result.success,
        type: tx.type,
        reason: result.success ? null : result.reason,
      };
      receipts.push(receipt);
      this.keep(receipt, unique[txIndex]!);
    }
    if (this.params.endBlock) this.params.endBlock(header, logIndex);
    const snapshot = this.params.snapshot(header, this.recent[this.recent.length - 1]!.snapshot);
    this.recent.push({ header, snapshot });
    if (this.recent.length > this.window) this.recent.shift();
    const produced: ProducedBlock<S> = { header, receipts, snapshot };
    this.params.onBlock?.(produced);
    return produced;
  }

  /** The newest block (the genesis before the first). */
  head(): BlockHeader {
    return this.recent[this.recent.length - 1]!.header;
  }

  /** The newest block number (0 before the first block). */
  blockNumber(): bigint {
    return this.head().number;
  }

  /** The consensus state of block `number` now. */
  stateOf(number: bigint): OrderbookState {
    const behind = Number(this.blockNumber() - number);
    const { voted, finalized, committed } = this.params.stateLagBlocks;
    if (behind >= committed) return 'committed';
    if (behind >= finalized) return 'finalized';
    if (behind >= voted) return 'voted';
    return 'proposed';
  }

  /**
   * The newest block that has reached `state`, with the snapshot after it. Before enough blocks
   * exist, the genesis (block 0, the state at creation).
   */
  atState(state: OrderbookState): { readonly header: BlockHeader; readonly snapshot: S } {
    const lag = state === 'proposed' ? 0 : this.params.stateLagBlocks[state];
    const index = Math.max(0, this.recent.length - 1 - lag);
    return this.recent[index]!;
  }

  receipt(hash: Hex): ChainReceipt | undefined {
    const found = this.receipts.get(hash);
    if (found !== undefined || this.indexed === this.log.length) return found;
    for (let i = Math.max(this.indexed, this.oldest); i < this.log.length; i++) {
      if (this.logUnique[i]) this.receipts.set(this.log[i]!.transactionHash, this.log[i]!);
    }
    this.indexed = this.log.length;
    return this.receipts.get(hash);
  }

  /** Keeps a new receipt, dropping the oldest beyond the limit. */
  private keep(receipt: ChainReceipt, unique: boolean): void {
    if (!unique) this.receipts.set(receipt.transactionHash, receipt);
    this.log.push(receipt);
    this.logUnique.push(unique);
    if (this.log.length - this.oldest <= this.maxReceipts) return;
    const at = this.oldest++;
    if (at < this.indexed || !this.logUnique[at]) this.receipts.delete(this.log[at]!.transactionHash);
    // Cut the dropped half off the log once it is as long as the kept one (not one shift per receipt).
    if (this.oldest >= this.maxReceipts) {
      this.log = this.log.slice(this.oldest);
      this.logUnique = this.logUnique.slice(this.oldest);
      this.indexed = Math.max(0, this.indexed - this.oldest);
      this.oldest = 0;
    }
  }
}
