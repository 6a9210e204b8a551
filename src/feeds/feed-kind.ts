/**
 * Which backtest a feed file is for: a candle feed (header.kind `candles`) goes to the candle
 * backtest; anything else (an event feed, a raw recording, no such file) to the event backtest,
 * which says what is wrong with it.
 */
import { open } from 'node:fs/promises';
import { openArrowFile } from './arrow-file.ts';
import { readHeader } from './feed-header.ts';

/** Whether `path` is a candle feed (read from its Arrow metadata; false for anything unreadable). */
export async function isCandleFeed(path: string): Promise<boolean> {
  const head = Buffer.alloc(6);
  try {
    const handle = await open(path, 'r');
    await handle.read(head, 0, 6, 0).finally(() => handle.close());
  } catch {
    return false;
  }
  if (head.toString('latin1') !== 'ARROW1') return false;
  const file = await openArrowFile(path);
  try {
    return readHeader(path, file.metadata).kind === 'candles';
  } finally {
    await file.close();
  }
}
