/**
 * `latestCandles`: polled candle windows -> each candle when it is new or has changed.
 */
import { concatMap, defer, type OperatorFunction } from 'rxjs';
import type { Candle } from '../candle.ts';

function sameCandle(a: Candle, b: Candle): boolean {
  return (
    a.openTime === b.openTime &&
    a.closeTime === b.closeTime &&
    a.open === b.open &&
    a.high === b.high &&
    a.low === b.low &&
    a.close === b.close &&
    a.volume === b.volume &&
    a.quoteVolume === b.quoteVolume &&
    a.numTrades === b.numTrades
  );
}

/**
 * Each poll returns the latest candles (the last one still open). Emits, in open-time order, each
 * candle newer than the last one emitted, and the last one again when it changed (the open candle
 * grows, or is final in the next poll); never a candle older than the last one emitted.
 *
 * @example klinePolls$.pipe(latestCandles())
 */
export function latestCandles(params: { readonly after?: Candle } = {}): OperatorFunction<readonly Candle[], Candle> {
  return (source) =>
    defer(() => {
      let last = params.after;
      return source.pipe(
        concatMap((candles) => {
          const ordered = [...candles].sort((a, b) => a.openTime - b.openTime);
          const out: Candle[] = [];
          for (const candle of ordered) {
            if (last !== undefined && (candle.openTime < last.openTime || (candle.openTime === last.openTime && sameCandle(candle, last)))) continue;
            out.push(candle);
            last = candle;
          }
          return out;
        }),
      );
    });
}
