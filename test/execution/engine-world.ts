/**
 * An in-test venue and relay for the engine's property test: a tiny chain (one market, maker
 * slots, expected-id checks, nonce replay guard, deadlines, blocks on demand, order events,
 * receipts) and a RelayTransport seam whose every delivery (a request reaching the relay, its
 * answer, an outcome, a reconnect) is a task of fast-check's scheduler, so the property explores
 * their interleavings. Processes can crash: a crashed engine's clock, journal and transport go
 * dead at once, as if the process had been killed.
 */
import type fc from 'fast-check';
import { Subject, NEVER, type Observable, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import type { Clock } from '../../src/core/clock.ts';
import type { RandomSource } from '../../src/core/random.ts';
import { UINT64_MAX } from '../../src/core/units.ts';
import type { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { ReceiptReader, UserDataReader } from '../../src/execution/execution-engine.ts';
import { planOfRequest, requestStampOf } from '../../src/execution/intent-signer.ts';
import type { JournalFs } from '../../src/execution/journal.ts';
import type { RelayWsClosedState } from '../../src/clients/relay-ws-client.ts';
import type { RelayTransport, SubmitAnswer, TransportConnectionEvent, TransportOutcome } from '../../src/execution/relay-transport.ts';
import { MAKER_SLOTS, RELAY_PENDING_OUTCOME_LIMIT } from '../../src/protocol/constants.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import type { RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { activeOrderSchema, orderEventSchema, type ActiveOrder, type OrderEvent } from '../../src/protocol/user-data.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';

interface ChainOrder {
  readonly id: bigint;
  readonly isBuy: boolean;
  readonly price: bigint;
  readonly size: bigint;
  readonly slot: number;
  readonly txHash: Hex;
  readonly time: number;
  readonly block: bigint;
}

interface ChainTx {
  readonly txHash: Hex;
  readonly requestId: string;
  readonly request: RelayRestRequest;
  status: 'pending' | 'CONFIRMED' | 'REVERTED';
  block: bigint;
}

const hashOf = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

/** The chain: accepts signed requests (nonce and deadline checks), executes them in blocks. */
export class FakeChain {
  lastNonce = 0n;
  readonly acceptedNonces: bigint[] = [];
  readonly slots: (ChainOrder | null)[] = new Array<ChainOrder | null>(MAKER_SLOTS).fill(null);
  readonly events: OrderEvent[] = [];
  /** Orders created per price (each test intent has its own price). */
  readonly createdByPrice = new Map<bigint, number>();
  readonly #txs = new Map<Hex, ChainTx>();
  #pending: ChainTx[] = [];
  #nextOrderId = 1n;
  #txSeq = 0;
  #block = 0n;
  readonly #executed = new Subject<ChainTx>();
  readonly executed$: Observable<ChainTx> = this.#executed.asObservable();

  constructor(
    readonly clock: Clock,
    readonly market: MarketSpec,
    readonly owner: Address,
  ) {}

  /** The relay's acceptance: BROADCAST (queued for the next block) or a refusal code. */
  accept(request: RelayRestRequest): { readonly ok: true; readonly txHash: Hex } | { readonly ok: false; readonly code: string } {
    const stamp = requestStampOf(request)!;
    if (stamp.nonce <= this.lastNonce) return { ok: false, code: 'NONCE_NOT_INCREASING' };
    if (stamp.deadlineSec < BigInt(Math.floor(this.clock.now() / 1000))) return { ok: false, code: 'DEADLINE_EXPIRED' };
    this.lastNonce = stamp.nonce;
    this.acceptedNonces.push(stamp.nonce);
    this.#txSeq += 1;
    const tx: ChainTx = { txHash: hashOf(this.#txSeq), requestId: request.requestId, request, status: 'pending', block: 0n };
    this.#txs.set(tx.txHash, tx);
    this.#pending.push(tx);
    return { ok: true, txHash: tx.txHash };
  }

  pendingCount(): number {
    return this.#pending.length;
  }

  /** Executes every pending transaction, in acceptance order. */
  block(): void {
    if (this.#pending.length === 0) return;
    this.#block += 1n;
    const pending = this.#pending;
    this.#pending = [];
    for (const tx of pending) {
      tx.block = this.#block;
      tx.status = this.#execute(tx) ? 'CONFIRMED' : 'REVERTED';
      this.#executed.next(tx);
    }
  }

  receipt(txHash: string): { readonly success: boolean; readonly blockNumber: bigint } | null {
    const tx = this.#txs.get(txHash.toLowerCase() as Hex);
    if (tx === undefined || tx.status === 'pending') return null;
    return { success: tx.status === 'CONFIRMED', blockNumber: tx.block };
  }

  eventsSince(fromMs: number): OrderEvent[] {
    return this.events.filter((event) => Date.parse(event.blockTimestamp) >= fromMs);
  }

  liveOrders(): ChainOrder[] {
    return this.slots.filter((order): order is ChainOrder => order !== null);
  }

  activeOrders(): ActiveOrder[] {
    return this.liveOrders().map((order) =>
      activeOrderSchema.parse({
        orderid: Number(order.id),
        marketaddress: this.market.address,
        owner: this.owner,
        size: order.size.toString(),
        price: order.price.toString(),
        isbuy: order.isBuy,
        remainingsize: order.size.toString(),
        iscanceled: false,
        blocknumber: order.block.toString(),
        txindex: '0',
        logindex: '0',
        transactionhash: order.txHash,
        triggertime: new Date(order.time).toISOString(),
        fliporderid: 0,
        flipprice: 0,
        lpid: '',
        sizeprecision: this.market.sizePrecision.toString(),
        priceprecision: this.market.pricePrecision.toString(),
      }),
    );
  }

  #execute(tx: ChainTx): boolean {
    const now = this.clock.now();
    const stamp = requestStampOf(tx.request)!;
    if (stamp.deadlineSec < BigInt(Math.floor(now / 1000))) return false;
    const plan = planOfRequest(tx.request);
    if (plan === undefined || plan.kind === 'cancel-trigger') return false;
    const slots = [...this.slots];
    const targets = plan.kind === 'batch' ? plan.cancelSlots : plan.ops.map((op) => op.slotIdx);
    for (const [i, slot] of targets.entries()) {
      const expected = plan.expectedOrderIds[i]!;
      const order = slots[slot] ?? null;
      if (expected === UINT64_MAX ? order !== null : order?.id !== expected) return false;
    }
    const events: OrderEvent[] = [];
    const cancel = (slot: number) => {
      const order = slots[slot];
      if (order === null || order === undefined) return;
      slots[slot] = null;
      events.push(this.#event('order-canceled', tx.txHash, now, order.id, order.isBuy, order.price, order.size));
    };
    for (const slot of targets) cancel(slot);
    const placed: bigint[] = [];
    const place = (isBuy: boolean, price: bigint, size: bigint, slot: number | undefined) => {
      const id = this.#nextOrderId++;
      placed.push(price);
      events.push(this.#event('order-created', tx.txHash, now, id, isBuy, price, size));
      if (slot === undefined) {
        events.push(this.#event('order-canceled', tx.txHash, now, id, isBuy, price, size));
        return true;
      }
      slots[slot] = { id, isBuy, price, size, slot, txHash: tx.txHash, time: now, block: this.#block };
      return true;
    };
    if (plan.kind === 'batch') {
      for (const order of plan.orders) {
        let slot: number | undefined;
        if (order.tif === 'GTC') {
          slot = slots.indexOf(null);
          if (slot < 0) return false;
        }
        place(order.side === 'BUY', order.price, order.size, slot);
      }
    } else {
      for (const op of plan.ops) if (op.kind === 'place') place(op.side === 'BUY', op.price, op.size, op.slotIdx);
    }
    // Commit (atomic: nothing above touched the chain).
    for (let slot = 0; slot < MAKER_SLOTS; slot++) this.slots[slot] = slots[slot] ?? null;
    for (const price of placed) this.createdByPrice.set(price, (this.createdByPrice.get(price) ?? 0) + 1);
    this.events.push(...events);
    return true;
  }

  #event(type: 'order-created' | 'order-canceled', txHash: Hex, time: number, id: bigint, isBuy: boolean, price: bigint, size: bigint): OrderEvent {
    const token = (spec: MarketSpec['baseToken']) => ({ address: spec.address, name: spec.symbol, symbol: spec.symbol, decimal: spec.decimals, logoUrl: null });
    const base = {
      orderId: id.toString(),
      marketAddress: this.market.address,
      owner: this.owner,
      isBuy,
      sizePrecision: this.market.sizePrecision.toString(),
      pricePrecision: this.market.pricePrecision.toString(),
      baseToken: token(this.market.baseToken),
      quoteToken: token(this.market.quoteToken),
      size: size.toString(),
      price: price.toString(),
    };
    const eventData =
      type === 'order-created'
        ? { ...base, baseDeposited: '0', baseDepositedInUsd: '0' }
        : { ...base, remainingSize: size.toString(), basePositionValue: '0', basePositionValueInUsd: '0' };
    return orderEventSchema.parse({ eventType: type, transactionHash: txHash, blockTimestamp: new Date(time).toISOString(), eventData });
  }
}

/** One engine process: its liveness gates its clock, journal, transport and readers. */
export class FakeProcess {
  alive = true;
  readonly #fds = new Set<number>();

  constructor(
    readonly base: JournalFs,
    readonly clock: VirtualClock,
  ) {}

  /** A clock whose scheduled work stops running when the process dies. */
  scopedClock(): Clock {
    const inner = this.clock.scheduler;
    const alive = () => this.alive;
    const scheduler: SchedulerLike = {
      now: () => inner.now(),
      schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
        return inner.schedule<T>(
          function (this: SchedulerAction<T>, value?: T) {
            if (alive()) work.call(this, value);
          },
          delay,
          state,
        );
      },
    };
    return { now: () => this.clock.now(), scheduler };
  }

  /** node:fs for the journal that fails every call once the process is dead. */
  journalFs(): JournalFs {
    const base = this.base;
    const check = (op: string) => {
      if (!this.alive) throw new Error(`${op}: the process is dead`);
    };
    return {
      openSync: (path, flags, mode) => {
        check('openSync');
        const fd = base.openSync(path, flags, mode);
        this.#fds.add(fd);
        return fd;
      },
      writeSync: (fd, buffer, offset, length) => (check('writeSync'), base.writeSync(fd, buffer, offset, length)),
      fsyncSync: (fd) => (check('fsyncSync'), base.fsyncSync(fd)),
      ftruncateSync: (fd, length) => (check('ftruncateSync'), base.ftruncateSync(fd, length)),
      closeSync: (fd) => {
        check('closeSync');
        this.#fds.delete(fd);
        base.closeSync(fd);
      },
      readFileSync: (path) => (check('readFileSync'), base.readFileSync(path)),
      renameSync: (from, to) => (check('renameSync'), base.renameSync(from, to)),
      unlinkSync: (path) => (check('unlinkSync'), base.unlinkSync(path)),
      existsSync: (path) => (check('existsSync'), base.existsSync(path)),
      mkdirSync: (path, options) => (check('mkdirSync'), base.mkdirSync(path, options)),
    };
  }

  /** Kills the process: nothing of it runs again; the descriptors it held are closed. */
  kill(): void {
    this.alive = false;
    for (const fd of this.#fds) this.base.closeSync(fd);
    this.#fds.clear();
  }
}

interface Connection {
  readonly id: number;
  open: boolean;
  readonly process: FakeProcess;
  /** Requests sent and not answered. */
  readonly inflight: Map<string, (answer: SubmitAnswer) => void>;
  /** txHash -> request id of broadcasts awaiting their outcome. */
  readonly pending: Map<Hex, string>;
  readonly transport: FakeTransport;
}

export interface RelayFaults {
  /** Seeded coin flips of the relay. */
  readonly random: RandomSource;
  readonly unknownRate: number;
  readonly withholdRate: number;
  /** A request sent on a socket that dies before it arrives is lost with this chance. */
  readonly lostRate: number;
}

/** The relay in front of the chain: one connection per wallet, outcomes per connection, its 64 limit. */
export class FakeRelay {
  maxPending = 0;
  closedAtLimit = 0;
  #nextConnection = 1;
  #current: Connection | undefined;
  #lastClosed: RelayWsClosedState | undefined;
  readonly #byTx = new Map<Hex, Connection>();

  constructor(
    readonly chain: FakeChain,
    readonly s: fc.Scheduler,
    readonly faults: RelayFaults,
  ) {
    chain.executed$.subscribe((tx) => this.#onExecuted(tx.txHash, tx.requestId, tx.status === 'CONFIRMED' ? 'CONFIRMED' : 'REVERTED', tx.block));
  }

  connect(transport: FakeTransport, process: FakeProcess): Connection {
    if (this.#current?.open) this.#close(this.#current, 4001, 'REPLACED');
    const connection: Connection = { id: this.#nextConnection++, open: true, process, inflight: new Map(), pending: new Map(), transport };
    this.#current = connection;
    transport.connection$.next({ type: 'open', via: 'ws', connectionId: connection.id, previous: this.#lastClosed?.connectionId === undefined ? undefined : this.#lastClosed });
    return connection;
  }

  /** Drops the current connection (no close frame); the client reconnects when the scheduler says. */
  drop(): void {
    const connection = this.#current;
    if (connection === undefined || !connection.open) return;
    this.#close(connection, 1006, '');
    const { transport, process } = connection;
    void this.s.schedule(Promise.resolve(), `reconnect after ${connection.id}`).then(() => {
      if (process.alive && !transport.stopped && this.#current === connection) transport.reconnect();
    });
  }

  /** The process died: its socket closes, nobody hears about it. */
  forget(process: FakeProcess): void {
    if (this.#current?.process === process && this.#current.open) {
      this.#current.open = false;
      this.#lastClosed = undefined;
      for (const txHash of this.#current.pending.keys()) this.#byTx.delete(txHash);
      this.#current.pending.clear();
      this.#current.inflight.clear();
    }
  }

  #close(connection: Connection, code: number, reason: string): void {
    connection.open = false;
    const awaitingOutcome = [...connection.pending.values(), ...connection.inflight.keys()];
    for (const txHash of connection.pending.keys()) this.#byTx.delete(txHash);
    connection.pending.clear();
    for (const [id, resolve] of connection.inflight) resolve({ requestId: id, status: 'DISCONNECTED', code, reason, via: 'ws', connectionId: connection.id });
    connection.inflight.clear();
    const state: RelayWsClosedState = { status: 'closed', connectionId: connection.id, code, reason, kind: code === 4008 ? 'pending-outcome-limit' : 'dropped', awaitingOutcome, reconnectInMs: 0 };
    this.#lastClosed = state;
    if (connection.process.alive) connection.transport.connection$.next({ type: 'closed', via: 'ws', state });
  }

  /** A request on `connection`: reaches the relay and is answered when the scheduler says. */
  send(connection: Connection, request: RelayRestRequest): Promise<SubmitAnswer> {
    const id = request.requestId;
    return new Promise<SubmitAnswer>((resolve) => {
      connection.inflight.set(id, resolve);
      void this.s.schedule(Promise.resolve(), `arrive ${id.slice(-4)}`).then(() => {
        // Sent on a socket that died (or whose process died) before it got there: maybe lost.
        if (!connection.open && this.faults.random.next() < this.faults.lostRate) return;
        const result = this.chain.accept(request);
        let unknown = false;
        if (result.ok) {
          unknown = this.faults.random.next() < this.faults.unknownRate;
          if (!unknown && connection.open) {
            if (connection.pending.size >= RELAY_PENDING_OUTCOME_LIMIT) {
              this.closedAtLimit += 1;
              this.#close(connection, 4008, 'PENDING_OUTCOME_LIMIT');
            } else {
              connection.pending.set(result.txHash, id);
              this.#byTx.set(result.txHash, connection);
              this.maxPending = Math.max(this.maxPending, connection.pending.size);
            }
          }
        }
        void this.s.schedule(Promise.resolve(), `answer ${id.slice(-4)}`).then(() => {
          const answer = connection.inflight.get(id);
          if (answer === undefined || !connection.process.alive) return;
          connection.inflight.delete(id);
          const carried = { via: 'ws' as const, connectionId: connection.id };
          if (!result.ok) {
            answer({ requestId: id, status: 'REJECTED', code: result.code, message: result.code, retryable: false, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null, ...carried });
          } else if (unknown) {
            answer({ requestId: id, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', message: 'unknown', retryable: false, retryAfterMs: null, candidateTxHash: result.txHash, sponsorAddress: null, sponsorNonce: null, ...carried });
          } else {
            answer({ requestId: id, status: 'BROADCAST', txHash: result.txHash, sponsorAddress: '0xa92b993cf1745125791b10a35238bc408baf44a5', sponsorNonce: '0', transactionType: 'DYNAMIC_FEE', ...carried });
          }
        });
      });
    });
  }

  #onExecuted(txHash: Hex, requestId: string, status: 'CONFIRMED' | 'REVERTED', block: bigint): void {
    const connection = this.#byTx.get(txHash);
    if (connection === undefined) return;
    this.#byTx.delete(txHash);
    if (this.faults.random.next() < this.faults.withholdRate) {
      connection.pending.delete(txHash);
      return;
    }
    void this.s.schedule(Promise.resolve(), `outcome ${requestId.slice(-4)}`).then(() => {
      if (!connection.open || !connection.process.alive || !connection.pending.has(txHash)) return;
      connection.pending.delete(txHash);
      connection.transport.outcomes.next({ requestId, txHash, status, blockNumber: block, reason: null, via: 'ws', connectionId: connection.id });
    });
  }
}

/** The engine's side of the seam: a RelayTransport over the fake relay. */
export class FakeTransport implements RelayTransport {
  readonly outcomes = new Subject<TransportOutcome>();
  readonly outcomes$: Observable<TransportOutcome> = this.outcomes.asObservable();
  readonly lateResponses$ = NEVER;
  readonly connection$ = new Subject<TransportConnectionEvent>();
  stopped = false;
  #connection: Connection | undefined;

  constructor(
    readonly relay: FakeRelay,
    readonly process: FakeProcess,
  ) {}

  available(): boolean {
    return this.#connection?.open === true;
  }

  async start(): Promise<void> {
    if (this.#connection === undefined) this.reconnect();
  }

  reconnect(): void {
    this.#connection = this.relay.connect(this, this.process);
  }

  submit(request: RelayRestRequest): Promise<SubmitAnswer> {
    const connection = this.#connection;
    if (this.stopped || connection === undefined || !connection.open) {
      return Promise.resolve({ requestId: request.requestId, status: 'NOT_SENT', code: 'NOT_CONNECTED', reason: 'no open relay connection', via: 'ws' });
    }
    return this.relay.send(connection, request);
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }
}

/** The account's order events and active orders, read from the chain while the process lives. */
export function fakeUserData(chain: FakeChain, process: FakeProcess): UserDataReader {
  const never = new Promise<never>(() => undefined);
  return {
    orderEventsSince: (fromMs) => (process.alive ? Promise.resolve(chain.eventsSince(fromMs)) : never),
    activeOrders: () => (process.alive ? Promise.resolve(chain.activeOrders()) : never),
  };
}

export function fakeReceipts(chain: FakeChain, process: FakeProcess): ReceiptReader {
  const never = new Promise<never>(() => undefined);
  return { receipt: (txHash) => (process.alive ? Promise.resolve(chain.receipt(txHash)) : never) };
}
