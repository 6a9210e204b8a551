/** The venue's chain: block timing on the clock, ordering, receipts, hashes, consensus states, snapshots. */
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { Chain, type ChainTx, type TxContext } from '../../src/venue/chain.ts';
import { blockHash } from '../../src/venue/venue-hashes.ts';

const FROM = '0x00000000000000000000000000000000000000f1';
const TO = '0x00000000000000000000000000000000000000f2';

function hash(n: number): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

/** A chain whose state is a counter of executed "add" transactions; "fail" reverts. */
function setup(lags = { voted: 1, finalized: 2, committed: 3 }) {
  const clock = new VirtualClock(1_000_000);
  const executed: { payload: string; context: TxContext }[] = [];
  let state = 0;
  const ends: bigint[] = [];
  const chain = new Chain<string, number>(
    { clock },
    {
      chainId: 31337,
      blockMs: 400,
      stateLagBlocks: lags,
      genesis: 0,
      execute: (tx, context) => {
        executed.push({ payload: tx.payload, context });
        if (tx.payload === 'fail') return { success: false, reason: 'INVALID_ORDER: nope', logCount: 0 };
        state += 1;
        return { success: true, reason: null, logCount: 2 };
      },
      endBlock: (block) => {
        ends.push(block.number);
        return 0;
      },
      snapshot: () => state,
    },
  );
  let n = 0;
  const tx = (payload: string): ChainTx<string> => ({ hash: hash(++n), from: FROM, to: TO, type: 'DYNAMIC_FEE', payload });
  return { clock, chain, executed, ends, tx };
}

describe('Chain', () => {
  it('produces a block every blockMs only while started, numbered from 1 with the clock time', () => {
    const { clock, chain } = setup();
    clock.advanceBy(1000);
    expect(chain.blockNumber()).toBe(0n);
    chain.start();
    chain.start(); // idempotent
    clock.advanceBy(1200);
    expect(chain.blockNumber()).toBe(3n);
    expect(chain.head().timestamp).toBe(1_000_000 + 1000 + 1200);
    chain.stop();
    chain.stop();
    clock.advanceBy(4000);
    expect(chain.blockNumber()).toBe(3n);
    expect(chain.running).toBe(false);
  });

  it('includes transactions in the next block, in submission order, with receipts and log indexes', () => {
    const { clock, chain, executed, ends, tx } = setup();
    chain.start();
    const [a, b, c] = [tx('add'), tx('fail'), tx('add')];
    chain.enqueue(a);
    chain.enqueue(b);
    chain.enqueue(c);
    expect(chain.pendingCount()).toBe(3);
    expect(chain.isPending(a.hash)).toBe(true);
    expect(chain.receipt(a.hash)).toBeUndefined();
    clock.advanceBy(400);
    expect(executed.map((e) => [e.payload, e.context.txIndex, e.context.firstLogIndex])).toEqual([
      ['add', 0, 0],
      ['fail', 1, 2],
      ['add', 2, 2],
    ]);
    expect(ends).toEqual([1n]);
    const head = chain.head();
    expect(head.transactions).toEqual([a.hash, b.hash, c.hash]);
    expect(chain.receipt(b.hash)).toEqual({
      transactionHash: b.hash,
      blockNumber: 1n,
      blockHash: head.hash,
      transactionIndex: 1,
      from: FROM,
      to: TO,
      success: false,
      type: 'DYNAMIC_FEE',
      reason: 'INVALID_ORDER: nope',
    });
    expect(chain.receipt(a.hash)?.reason).toBeNull();
    expect(chain.pendingCount()).toBe(0);
    // Pending transactions wait while stopped, and go into the next block after a restart.
    chain.stop();
    const d = tx('add');
    chain.enqueue(d);
    clock.advanceBy(2000);
    expect(chain.receipt(d.hash)).toBeUndefined();
    expect(chain.produceBlock().header.transactions).toEqual([d.hash]);
  });

  it('hashes blocks deterministically and chains them by parent hash', () => {
    const first = setup();
    const second = setup();
    for (const { chain, clock, tx } of [first, second]) {
      chain.start();
      chain.enqueue(tx('add'));
      clock.advanceBy(800);
    }
    expect(first.chain.head()).toEqual(second.chain.head());
    const head = first.chain.head();
    expect(head.hash).toBe(blockHash(31337, 2n, head.parentHash, head.timestamp, []));
    expect(head.hash).not.toBe(head.parentHash);
  });

  it('moves blocks through proposed, voted, finalized and committed, with the snapshot at each', () => {
    const { clock, chain, tx } = setup();
    chain.start();
    // Before enough blocks exist, later states read the genesis (block 0, the initial state).
    expect(chain.atState('committed')).toMatchObject({ header: { number: 0n }, snapshot: 0 });
    chain.enqueue(tx('add'));
    clock.advanceBy(400); // block 1: state 1
    expect(chain.stateOf(1n)).toBe('proposed');
    expect(chain.atState('proposed')).toMatchObject({ header: { number: 1n }, snapshot: 1 });
    expect(chain.atState('voted')).toMatchObject({ header: { number: 0n }, snapshot: 0 });
    chain.enqueue(tx('add'));
    clock.advanceBy(400); // block 2: state 2
    expect(chain.stateOf(1n)).toBe('voted');
    expect(chain.atState('voted').snapshot).toBe(1);
    clock.advanceBy(400);
    expect(chain.stateOf(1n)).toBe('finalized');
    expect(chain.atState('finalized').snapshot).toBe(1);
    expect(chain.atState('committed').snapshot).toBe(0);
    clock.advanceBy(400);
    expect(chain.stateOf(1n)).toBe('committed');
    expect(chain.atState('committed')).toMatchObject({ header: { number: 1n }, snapshot: 1 });
    clock.advanceBy(4000);
    expect(chain.atState('committed')).toMatchObject({ header: { number: 11n }, snapshot: 2 });
    expect(chain.atState('proposed').header.number).toBe(14n);
  });

  it('reads every state at the head when all lags are zero', () => {
    const { clock, chain, tx } = setup({ voted: 0, finalized: 0, committed: 0 });
    chain.start();
    chain.enqueue(tx('add'));
    clock.advanceBy(400);
    expect(chain.atState('committed')).toMatchObject({ header: { number: 1n }, snapshot: 1 });
    expect(chain.stateOf(1n)).toBe('committed');
  });

  it('refuses the same transaction hash twice as a broken invariant', () => {
    const { chain, tx } = setup();
    const a = tx('add');
    chain.enqueue(a);
    let caught: unknown;
    try {
      chain.enqueue(a);
    } catch (error) {
      caught = error;
    }
    expect(isBaseError(caught, 'VENUE_INVARIANT_BROKEN')).toBe(true);
  });
});
