/**
 * The RxJS scheduler of a VirtualClock: work runs only when the clock is advanced, in due-time
 * order, ties in the order scheduled.
 *
 * Why not RxJS's VirtualTimeScheduler: it sorts its whole action list on every schedule (a virtual
 * hour schedules hundreds of thousands of actions), and a periodic action (`interval`, `timer` with
 * a period) that reschedules itself becomes a new action nested in the previous one, so an hour of
 * 400 ms blocks is a 9,000-deep chain that overflows the stack when it is unsubscribed. Here an
 * action reschedules itself in place, as RxJS's AsyncAction does on wall time, and the queue is a
 * binary heap (O(log n) per schedule); a cancelled or rescheduled entry is skipped when it surfaces.
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

interface Entry {
  readonly task: VirtualTask<unknown>;
  readonly due: number;
  /** Schedule order: breaks ties of due time. */
  readonly seq: number;
}

const before = (a: Entry, b: Entry) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

class VirtualTask<T> extends Subscription implements SchedulerAction<T> {
  /** The heap entry that will run this task; undefined when it is not scheduled. */
  entry: Entry | undefined;
  state: T | undefined;

  constructor(
    private readonly scheduler: VirtualScheduler,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super();
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.state = state;
    this.entry = this.scheduler.enqueue(this as VirtualTask<unknown>, this.scheduler.now() + Math.max(0, delay));
    return this;
  }

  run(): void {
    try {
      this.work.call(this, this.state);
    } catch (error) {
      this.unsubscribe();
      throw error;
    }
  }

  override unsubscribe(): void {
    // The heap entry stays and is skipped when it surfaces.
    this.entry = undefined;
    super.unsubscribe();
  }
}

/**
 * @example
 * const scheduler = new VirtualScheduler(0);
 * interval(400, scheduler).subscribe((n) => console.log(n, scheduler.now()));
 * scheduler.runUntil(1_000); // logs 0 400, 1 800
 */
export class VirtualScheduler implements SchedulerLike {
  #now: number;
  #seq = 0;
  readonly #heap: Entry[] = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return new VirtualTask<T>(this, work).schedule(state, delay);
  }

  /** Queues `task` at `due`; its earlier entry, if any, is dropped when it surfaces. */
  enqueue(task: VirtualTask<unknown>, due: number): Entry {
    const entry: Entry = { task, due, seq: this.#seq++ };
    const heap = this.#heap;
    let index = heap.push(entry) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
    return entry;
  }

  /** The due time of the next live action, if any. */
  nextDueTime(): number | undefined {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]!.task.entry !== heap[0]) this.#pop();
    return heap[0]?.due;
  }

  /** Runs every action due at or before `timeMs` (each at its own due time), then sets the time to `timeMs`. */
  runUntil(timeMs: number): void {
    for (;;) {
      const due = this.nextDueTime();
      if (due === undefined || due > timeMs) break;
      const { task } = this.#pop();
      task.entry = undefined;
      this.#now = due;
      task.run();
    }
    this.#now = timeMs;
  }

  #pop(): Entry {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}
