/**
 * A feed's rows are in the order the bot received them (local time); a replay applies them in the
 * order they happened at the exchange. Rows are held in a heap by exchange time (then by file order)
 * and released once no later row of the feed can have happened before them: a row received at local
 * time L happened at L - lag at the earliest, lag at most `maxLagMs`. A row that arrives later than
 * that after its exchange time is applied as soon as it arrives.
 */

export interface HeldRow {
  readonly exchMs: number;
  readonly seq: number;
  readonly kind: number;
  readonly side: number;
  readonly price: bigint;
  readonly qty: bigint;
  readonly id: bigint;
}

const before = (a: HeldRow, b: HeldRow) => a.exchMs < b.exchMs || (a.exchMs === b.exchMs && a.seq < b.seq);

/** A binary min-heap of rows by (exchange time, file order). */
export class ExchangeOrder {
  private readonly heap: HeldRow[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** The earliest held row, or undefined. */
  peek(): HeldRow | undefined {
    return this.heap[0];
  }

  push(row: HeldRow): void {
    const heap = this.heap;
    heap.push(row);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  }

  pop(): HeldRow | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
      if (right < heap.length && before(heap[right]!, heap[least]!)) least = right;
      if (least === at) break;
      [heap[at], heap[least]] = [heap[least]!, heap[at]!];
      at = least;
    }
    return top;
  }
}
