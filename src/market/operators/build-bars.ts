/**
 * `buildBars`: an RxJS operator that turns trades into candles with `BarBuilder`.
 */
import { Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { BarBuilder, type BarBuilderParameters, type BarTrade } from '../bar-builder.ts';
import type { Candle } from '../candle.ts';

export interface BuildBarsParameters extends BarBuilderParameters {
  /**
   * Closes candles on this scheduler's time (`clock.scheduler`): the candle of an interval is
   * emitted once the clock passes its close plus `graceMs`, even if no later trade arrives, and
   * empty intervals keep coming as flat candles while time passes. Without a scheduler only a
   * trade of a later interval closes a candle.
   */
  readonly scheduler?: SchedulerLike;
  /**
   * How long after an interval's close to wait for its trades before closing it by the clock
   * (default 0). Polled trades arrive late: use at least the trades poll period plus latency.
   */
  readonly graceMs?: number;
}

/**
 * Candles of `intervalMs` from a stream of trades in time order (Binance's rules, see
 * `BarBuilder`). Each candle is emitted once, when closed; when the source completes, the candle in
 * progress is emitted if a trade reached it.
 *
 * @example
 * feed.trades$.pipe(buildBars({ intervalMs: 60_000, scheduler: clock.scheduler, graceMs: 2_000 }))
 *   .subscribe((candle) => log.info(candleToKline(candle, market)));
 */
export function buildBars(params: BuildBarsParameters): OperatorFunction<BarTrade, Candle> {
  const { scheduler, graceMs = 0 } = params;
  return (source) =>
    new Observable<Candle>((subscriber) => {
      const builder = new BarBuilder(params);
      let armedFor: number | undefined;
      let timer: Subscription | undefined;
      const emit = (candles: readonly Candle[]) => {
        for (const candle of candles) subscriber.next(candle);
      };
      // One timer at a time, for the close of the candle in progress.
      const arm = () => {
        const close = builder.pendingCloseTime;
        if (scheduler === undefined || close === undefined || close === armedFor) return;
        timer?.unsubscribe();
        armedFor = close;
        timer = scheduler.schedule(
          () => {
            armedFor = undefined;
            emit(builder.closeUntil(scheduler.now() - graceMs));
            arm();
          },
          Math.max(0, close + 1 + graceMs - scheduler.now()),
        );
      };
      const subscription = source.subscribe({
        next(trade) {
          emit(builder.push(trade));
          arm();
        },
        error(error: unknown) {
          subscriber.error(error);
        },
        complete() {
          const last = builder.flush();
          if (last) subscriber.next(last);
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        timer?.unsubscribe();
      };
    });
}
