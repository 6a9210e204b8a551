/**
 * How the market feed shares a polled source among subscribers.
 */
import { ReplaySubject, share, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * One subscription to the source however many subscribers, reference counted: the source starts
 * with the first subscriber and stops when the last one leaves (a later subscriber starts it
 * again). Late subscribers receive the latest value at once: for state (books, tickers).
 */
export function shareLatest<T>(): MonoTypeOperatorFunction<T> {
  return share({ connector: () => new ReplaySubject<T>(1), resetOnError: true, resetOnComplete: true, resetOnRefCountZero: true });
}

/** As `shareLatest` without the replay: for events (trades, candles), each delivered once. */
export function shareEvents<T>(): MonoTypeOperatorFunction<T> {
  return share({ resetOnError: true, resetOnComplete: true, resetOnRefCountZero: true });
}
