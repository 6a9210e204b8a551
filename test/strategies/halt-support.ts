/** What the strategy tests of a halt share: a kill file to trip the switch with, the trading states a strategy saw, and which intents place. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defer, finalize } from 'rxjs';
import { isRiskReducing, type Intent, type StrategyDefinition, type TradingState } from 'clobbot';

/** Runs `work` with a kill file path in a fresh directory (the engine's kill switch looks for it every second of clock time). */
export async function withKillFile(work: (file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-halt-'));
  try {
    await work(join(dir, 'stop-now'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `definition` with what its context's tradingState$ emits recorded, and the clock time it first turned HALTED. */
export function haltedBy<D extends StrategyDefinition>(definition: D) {
  const states: TradingState[] = [];
  let haltedAt: number | undefined;
  const watched: D = {
    ...definition,
    // Watched alongside the strategy's stream, and for as long: it completes when the strategy does.
    create: (ctx) =>
      defer(() => {
        const watching = ctx.tradingState$.subscribe((state) => {
          states.push(state);
          if (state.state === 'HALTED') haltedAt ??= ctx.clock.now();
        });
        return definition.create(ctx).pipe(finalize(() => watching.unsubscribe()));
      }),
  };
  return { definition: watched, states, at: () => haltedAt };
}

/** Whether an intent places an order (anything but cancels). */
export const placesAnything = (intent: Intent): boolean => !isRiskReducing(intent);
