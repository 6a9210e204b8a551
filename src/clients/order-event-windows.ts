/**
 * Which timestamp window the order-events reader asks for next. Windows are `[from, to]` in Unix
 * seconds, both inclusive (`to` undefined: open-ended, up to now); each next window starts at the
 * top of the last complete one, so consecutive windows share their boundary second.
 *
 * A window is full when it held more than one page (`limit`). Then the planner narrows it, using
 * what the full answer says: its page holds the window's newest events down to some second `o`, and
 * `pagination.total` counts the whole window, so `[lo, o]` holds `total - page + (events at o)`
 * events. These counts are kept (and reduced as windows complete) to pick the widest next window
 * that should fit one page. Without such a bound, the planner either steps down from the top a page
 * at a time (asking `[lo, o]` again reveals where the next page of events starts) when that takes
 * fewer requests than halving the width, or aims at half a page assuming an even density. After a complete window with no known bound ahead, the next one is sized by the density
 * just seen (growing at most 8 times). A full window of the smallest width the API allows
 * (`[s, s + 1]`: `from < to` is required) can only be read by `offset`: the planner says so.
 *
 * The counts only steer: whether a window is complete is always decided by its own answer.
 */
import type { OrderEvent } from '../protocol/user-data.ts';
import type { OrderEventsPage } from './order-events-client.ts';

export interface EventWindow {
  readonly from: number;
  /** Inclusive; undefined: open-ended. */
  readonly to: number | undefined;
}

export interface WindowPlanner {
  /** The bottom of the next window: every event below it (down to the start) has been read. */
  readonly lo: number;
  /** The next window to ask for. */
  next(nowSecond: number): EventWindow;
  /** The last window came back complete; the next starts at its top. False when it was open-ended (caught up). */
  completed(window: EventWindow, events: readonly OrderEvent[]): boolean;
  /** The last window came back full: `narrow` (ask again, narrower) or `offset` (read `[lo, lo + 1]` by offset). */
  full(window: EventWindow, page: OrderEventsPage, nowSecond: number): 'narrow' | 'offset';
  /** `[lo, lo + 1]` was read whole by offset; the next window starts at `lo + 1`. */
  readByOffset(events: readonly OrderEvent[]): void;
}

/** Events in `[lo, top]`, as last counted by the server. */
interface KnownCount {
  readonly top: number;
  count: number;
}

let lastTimestamp: string | undefined;
let lastTimeMs = Number.NaN;

/**
 * `Date.parse(event.blockTimestamp)`. Events come in runs of one block's time, read again on every
 * pass, so the last answer is kept.
 */
export function eventTimeMs(event: OrderEvent): number {
  const text = event.blockTimestamp;
  if (text !== lastTimestamp) {
    lastTimeMs = Date.parse(text);
    lastTimestamp = text;
  }
  return lastTimeMs;
}

const secondOf = (event: OrderEvent) => Math.floor(eventTimeMs(event) / 1000);

/**
 * @example
 * const planner = createWindowPlanner({ from: cursor.fromTimestamp, limit: 50 });
 * const window = planner.next(nowSecond); // { from, to: undefined } first
 */
export function createWindowPlanner(params: { readonly from: number; readonly limit: number }): WindowPlanner {
  const { limit } = params;
  let lo = params.from;
  /** Width of the next window when nothing is known ahead; undefined: open-ended. */
  let span: number | undefined;
  /** Set after a full window to its top minus one: the very next window must be narrower. */
  let ceiling: number | undefined;
  let known: KnownCount[] = [];

  const learn = (top: number, count: number) => {
    if (top <= lo) return;
    known = known.filter((entry) => entry.top !== top);
    known.push({ top, count });
    known.sort((a, b) => a.top - b.top);
  };

  /** lo moves to `next`: events below it leave every known count. */
  const moveTo = (next: number, events: readonly OrderEvent[]) => {
    const left = events.filter((event) => secondOf(event) < next).length;
    lo = next;
    known = known.filter((entry) => entry.top > lo);
    for (const entry of known) entry.count = Math.max(0, entry.count - left);
    ceiling = undefined;
  };

  return {
    get lo() {
      return lo;
    },
    next(nowSecond) {
      const tooFull = known.find((entry) => entry.count >= limit);
      // Counts grow with the top: the widest window known to fit lies below the first one known too full.
      const fitting = known.filter((entry) => entry.count < limit && (tooFull === undefined || entry.top < tooFull.top)).at(-1);
      let to: number | undefined;
      if (fitting !== undefined) {
        to = fitting.top;
      } else if (tooFull !== undefined) {
        // Find the crowded part: step down by pages from the top when that takes fewer requests than
        // halving the width (events bunched near the top), else guess from an even density.
        const pages = tooFull.count / limit;
        const even = lo + Math.max(1, Math.floor(((tooFull.top - lo) * limit) / 2 / tooFull.count));
        to = pages <= Math.log2(tooFull.top - lo + 1) ? tooFull.top : even;
      } else {
        to = span === undefined ? undefined : lo + span;
      }
      if (ceiling !== undefined) to = Math.min(to ?? ceiling, ceiling);
      else if (to !== undefined && to >= nowSecond) to = undefined;
      if (to !== undefined && to <= lo) to = lo + 1;
      return { from: lo, to };
    },
    completed(window, events) {
      if (window.to === undefined) return false;
      const width = window.to - lo;
      moveTo(window.to, events);
      span = Math.max(1, Math.min(width * 8, Math.floor((width * limit) / 2 / Math.max(1, events.length))));
      return true;
    },
    full(window, page, nowSecond) {
      let top = window.to ?? nowSecond;
      for (const event of page.events) top = Math.max(top, secondOf(event));
      if (top - lo <= 1) return 'offset';
      ceiling = top - 1;
      const { total } = page.pagination;
      if (total >= page.events.length) {
        learn(top, total);
        let oldest = top;
        for (const event of page.events) oldest = Math.min(oldest, secondOf(event));
        const atOldest = page.events.filter((event) => secondOf(event) === oldest).length;
        // A page reaching down to lo itself: the crowd is at the bottom, read `[lo, lo + 1]` next.
        if (oldest <= lo) ceiling = lo + 1;
        else learn(oldest, total - page.events.length + atOldest);
      } else {
        // No usable count: the next try is half as wide.
        ceiling = lo + Math.ceil((top - lo) / 2);
      }
      return 'narrow';
    },
    readByOffset(events) {
      moveTo(lo + 1, events);
      span = 1;
    },
  };
}
