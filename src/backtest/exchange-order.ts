/**
 * A feed's rows are in the order the bot received them (local time); a replay applies them in the
 * order they happened at the exchange. Rows are held by exchange time (then by file order) and
 * released once no later row of the feed can have happened before them: a row received at local
 * time L happened at L - lag at the earliest, lag at most the replay's bound. A row that arrives later
 * than that after its exchange time is applied as soon as it arrives.
 *
 * Most rows already come in exchange order: they queue in a plain FIFO; only the rows that arrive out
 * of order go to a binary heap; the earlier head of the two is released first.
 *
 * Rows live in columns indexed by a slot number, not in an object each: a replay holds a few thousand
 * rows at a time but passes millions through, and an object per row was a large part of its garbage.
 * A slot stays its row's until the owner frees it (the replay keeps it while the committed-state book
 * has still to apply the row).
 */

/** No row: what `peek` and `pop` return when nothing is held. */
export const NO_ROW = -1;

export class ExchangeOrder {
  /** The rows' columns, by slot. */
  exchMs = new Float64Array(1024);
  kind = new Uint8Array(1024);
  side = new Int8Array(1024);
  /** Price units as numbers (uint32: exact), a bigint made only where one is needed. */
  price = new Float64Array(1024);
  readonly qty: bigint[] = [];
  readonly id: bigint[] = [];
  /** File order, the tie-break of rows with one exchange time. */
  private seq = new Float64Array(1024);
  private pushed = 0;
  private readonly free: number[] = [];
  private used = 0;
  /** Slots of rows in exchange order as they came; `head` is the first not yet released. */
  private readonly fifo: number[] = [];
  private head = 0;
  /** Slots of rows that came after a later one: a binary min-heap. */
  private readonly heap: number[] = [];

  get size(): number {
    return this.fifo.length - this.head + this.heap.length;
  }

  /** Holds a row; returns its slot. */
  push(exchMs: number, kind: number, side: number, price: number, qty: bigint, id: bigint): number {
    const slot = this.free.length > 0 ? this.free.pop()! : this.grow();
    this.exchMs[slot] = exchMs;
    this.seq[slot] = this.pushed += 1;
    this.kind[slot] = kind;
    this.side[slot] = side;
    this.price[slot] = price;
    this.qty[slot] = qty;
    this.id[slot] = id;
    const fifo = this.fifo;
    if (this.head === fifo.length || this.exchMs[fifo[fifo.length - 1]!]! <= exchMs) {
      fifo.push(slot);
      return slot;
    }
    const heap = this.heap;
    heap.push(slot);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const up = heap[parent]!;
      if (!this.before(slot, up)) break;
      heap[at] = up;
      at = parent;
    }
    heap[at] = slot;
    return slot;
  }

  /** The slot of the earliest held row, or NO_ROW. */
  peek(): number {
    const queued = this.head < this.fifo.length ? this.fifo[this.head]! : NO_ROW;
    const out = this.heap.length > 0 ? this.heap[0]! : NO_ROW;
    if (queued === NO_ROW) return out;
    return out !== NO_ROW && this.before(out, queued) ? out : queued;
  }

  /** Releases the earliest held row: its slot (its columns stay readable until `free`), or NO_ROW. */
  pop(): number {
    const queued = this.head < this.fifo.length ? this.fifo[this.head]! : NO_ROW;
    const out = this.heap.length > 0 ? this.heap[0]! : NO_ROW;
    if (queued !== NO_ROW && (out === NO_ROW || !this.before(out, queued))) {
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
    return out === NO_ROW ? NO_ROW : this.popHeap();
  }

  /** Gives a released row's slot back. */
  release(slot: number): void {
    this.free.push(slot);
  }

  private before(a: number, b: number): boolean {
    const exchMs = this.exchMs;
    return exchMs[a]! < exchMs[b]! || (exchMs[a] === exchMs[b] && this.seq[a]! < this.seq[b]!);
  }

  private grow(): number {
    const slot = this.used++;
    if (slot === this.exchMs.length) {
      const grown = (from: Float64Array) => {
        const to = new Float64Array(from.length * 2);
        to.set(from);
        return to;
      };
      this.exchMs = grown(this.exchMs);
      this.seq = grown(this.seq);
      this.price = grown(this.price);
      const kind = new Uint8Array(slot * 2);
      kind.set(this.kind);
      this.kind = kind;
      const side = new Int8Array(slot * 2);
      side.set(this.side);
      this.side = side;
    }
    return slot;
  }

  private popHeap(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = last;
      let next = -1;
      if (left < heap.length && this.before(heap[left]!, least)) {
        least = heap[left]!;
        next = left;
      }
      if (right < heap.length && this.before(heap[right]!, least)) {
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
