/**
 * Keeps a feed's rows in local-time order when a few arrive late: rows are held for `windowNs` of
 * local time and written in order, each late row inserted where it belongs. Used for the bot's own
 * orders and fills, which take effect at the venue (placement confirmed, fill's block) before the
 * recorder hears of them.
 */
import type { FeedEvent } from './feed-event.ts';
import type { EventFeedWriter } from './event-feed-writer.ts';

export interface ReorderBuffer {
  push(event: FeedEvent): void;
  /** True while `event` is held (not written yet): it may still be changed. */
  holds(event: FeedEvent): boolean;
  /** Writes every row still held. */
  flush(): void;
}

/** @example const rows = reorderBuffer(writer, 10_000_000_000n); rows.push(event); rows.flush(); */
export function reorderBuffer(writer: EventFeedWriter, windowNs: bigint): ReorderBuffer {
  const held: FeedEvent[] = [];
  let newest = 0n;
  return {
    push(event) {
      // Insert after every held row of the same or an earlier time: equal times keep their order.
      let at = held.length;
      while (at > 0 && held[at - 1]!.localTs > event.localTs) at -= 1;
      held.splice(at, 0, event);
      if (event.localTs > newest) newest = event.localTs;
      let written = 0;
      while (written < held.length && held[written]!.localTs <= newest - windowNs) writer.appendEvent(held[written++]!);
      if (written > 0) held.splice(0, written);
    },
    holds: (event) => held.includes(event),
    flush() {
      for (const event of held) writer.appendEvent(event);
      held.length = 0;
    },
  };
}
