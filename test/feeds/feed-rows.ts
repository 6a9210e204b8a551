/** Test helpers: every row of a feed as objects, and the typed error a failing call ends with. */
import { isBaseError } from '../../src/core/base-error.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { eventAt, type FeedEvent } from '../../src/feeds/feed-event.ts';

export async function readEvents(path: string): Promise<FeedEvent[]> {
  const feed = await openEventFeed(path);
  const events: FeedEvent[] = [];
  for await (const columns of feed.batches()) for (let i = 0; i < columns.length; i += 1) events.push(eventAt(columns, i));
  await feed.close();
  return events;
}

/** The code and message of the BaseError that `run` rejects with (a success fails the test). */
export async function refusal(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the call succeeded');
}
