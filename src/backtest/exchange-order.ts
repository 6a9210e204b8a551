/**
 * A feed's rows are in the order the bot received them (local time); a replay applies them in the
 * order they happened at the exchange. Rows are held by exchange time (then by file order) and
 * released once no later row of the feed can have happened before them: a row received at local
 * time L happened at L - lag at the earliest, lag at most the replay's bound. A row that arrives later
 * than that after its exchange time is applied as soon as it arrives.
 *
 * Most rows already come in exchange order: they queue in a plain FIFO; only the rows that arrive out
 * of order go to a binary heap; the earlier head of the two is released first.
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

export class ExchangeOrder {
  /** Rows in exchange order as they came; `head` is the first not yet released. */
  private readonly fifo: HeldRow[] = [];
  private head = 0;
  /** Rows that came after a later one: a binary min-heap. */
  private readonly heap: HeldRow[] = [];

  get size(): number {
    return this.fifo.length - this.head + this.heap.length;
  }

  /** The earliest held row, or undefined. */
  peek(): HeldRow | undefined {
    const queued = this.fifo[this.head];
    const out = this.heap[0];
    if (queued === undefined) return out;
    return out !== undefined && before(out, queued) ? out : queued;
  }

  push(row: HeldRow): void {
    const last = this.fifo[this.fifo.length - 1];
    if (this.fifo.length === this.head || last === undefined || last.exchMs <= row.exchMs) {
      this.fifo.push(row);
      return;
    }
    const heap = this.heap;
    heap.push(row);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const up = heap[parent]!;
      if (!before(row, up)) break;
      heap[at] = up;
      at = parent;
    }
    heap[at] = row;
  }

  pop(): HeldRow | undefined {
    const queued = this.fifo[this.head];
    const out = this.heap[0];
    if (queued !== undefined && (out === undefined || !before(out, queued))) {
      this.head += 1;
      if (this.head === this.fifo.length) {
        this.fifo.length = 0;
        this.head = 0;
      } else if (this.head > 4_096) {
        this.fifo.splice(0, this.head);
        this.head = 0;
      }
      return queued;
    }
    return this.popHeap();
  }

  private popHeap(): HeldRow | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = last;
      let next = -1;
      if (left < heap.length && before(heap[left]!, least)) {
        least = heap[left]!;
        next = left;
      }
      if (right < heap.length && before(heap[right]!, least)) {
        least = heap[right]!;
        next = right;
      }
      if (next < 0) break;
      heap[at] = least;
      at = next;
    }
    heap[at] = last;
    return top;
  }
}
