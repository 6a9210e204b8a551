/**
 * A scenario written out for `clobbot backtest`: its market as an event feed (the backtester's
 * format: each book step a snapshot, each public trade a trade row, at the scenario's times) and a
 * run file for that market and the strategy, so a failure the kit found can be replayed and opened in
 * the HTML report:
 *
 *   writeScenarioReplay(failure.scenario, { dir: 'failure', module: 'strategies/market-maker.ts', name: 'mm', params: failure.params });
 *   clobbot backtest failure/run.yaml --feed failure/scenario.arrow
 *
 * The backtest replays the market, not the faults of the connection or the kill switch: it shows what
 * the strategy did in that market on the recorded book.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { fromUnits } from '../core/units.ts';
import { DEFAULT_VIRTUAL_START_MS } from '../config/virtual-config.ts';
import { createEventFeedWriter } from '../feeds/event-feed-writer.ts';
import { FeedEventKind, Side } from '../feeds/feed-event.ts';
import type { RiskConfig } from '../config/run-config.ts';
import { OPEN_RUN_RISK } from './run-scenario.ts';
import { expandScenario, startBook, type Scenario } from './scenario.ts';
import { bookInUnits, priceUnits, sizeUnits } from './scripted-market.ts';

export interface ScenarioReplayOptions {
  /** Directory to write `scenario.arrow` and `run.yaml` into (created). */
  readonly dir: string;
  /** The strategy's module, as a run file names it (relative to where `clobbot backtest` runs, or absolute). */
  readonly module: string;
  /** The strategy's name in the run file. Default `strategy`. */
  readonly name?: string;
  readonly params: unknown;
  /** The run's risk limits (run-file form). Default the property runner's open ones. */
  readonly risk?: Partial<RiskConfig>;
  /** The time of the scenario's start, ms since the epoch. Default the virtual clock's default start. */
  readonly startMs?: number;
}

const ns = (ms: number) => BigInt(ms) * 1_000_000n;

/** Writes the feed and the run file; returns their paths. */
export function writeScenarioReplay(scenario: Scenario, options: ScenarioReplayOptions): { readonly feed: string; readonly runFile: string } {
  const spec = scenario.market;
  const startMs = options.startMs ?? DEFAULT_VIRTUAL_START_MS;
  mkdirSync(options.dir, { recursive: true });
  // The market whole, integers as text: the feed header's `venue` and the run file's market entry.
  const venue = {
    address: spec.address,
    baseToken: spec.baseToken,
    quoteToken: spec.quoteToken,
    pricePrecision: spec.pricePrecision.toString(),
    sizePrecision: spec.sizePrecision.toString(),
    tickSize: spec.tickSize.toString(),
    minSize: spec.minSize.toString(),
    maxSize: spec.maxSize.toString(),
    makerFeePps: spec.makerFeePps.toString(),
    takerFeePps: spec.takerFeePps.toString(),
  };
  const feed = join(options.dir, 'scenario.arrow');
  const writer = createEventFeedWriter(feed, {
    format: 'clobbot-feed',
    version: 1,
    kind: 'events',
    market: { symbol: spec.symbol, tickSize: fromUnits(spec.tickSize, spec.pricePrecision), lotSize: fromUnits(1n, spec.sizePrecision), venue },
    source: { kind: 'scenario', files: [] },
  });
  let update = 0n;
  let trade = 0n;
  const snapshot = (atMs: number, book: ReturnType<typeof startBook>) => {
    const t = ns(startMs + atMs);
    update += 1n;
    writer.append(FeedEventKind.BOOK_CLEAR, Side.NONE, t, t, 0n, 0n, update);
    const levels = bookInUnits(book, spec);
    for (const level of levels.bids) writer.append(FeedEventKind.LEVEL, Side.BUY, t, t, level.price / spec.tickSize, level.size, update);
    for (const level of levels.asks) writer.append(FeedEventKind.LEVEL, Side.SELL, t, t, level.price / spec.tickSize, level.size, update);
    writer.append(FeedEventKind.CHECKPOINT, Side.NONE, t, t, 0n, 0n, update);
  };
  snapshot(0, startBook(scenario));
  for (const step of expandScenario(scenario)) {
    if ('book' in step) snapshot(step.at, step.book);
    else if ('trade' in step) {
      const t = ns(startMs + step.at);
      const taker = step.trade.isBuyerMaker === true ? Side.SELL : Side.BUY;
      writer.append(FeedEventKind.TRADE, taker, t, t, priceUnits(step.trade.price, spec) / spec.tickSize, sizeUnits(step.trade.qty, spec), (trade += 1n));
    }
  }
  writer.finish();

  const runFile = join(options.dir, 'run.yaml');

  const name = options.name ?? 'strategy';
  writeFileSync(
    runFile,
    `# A scenario of the property kit, for clobbot backtest ${runFile} --feed ${feed}\n` +
      stringify({
        network: 'sim',
        wallet: { ephemeral: true },
        markets: [{ symbol: spec.symbol, ...venue }],
        strategies: [{ name, module: options.module, markets: [spec.symbol], idleTimeout: 'off', params: options.params }],
        risk: { ...OPEN_RUN_RISK, ...options.risk },
        logging: { level: 'warn' },
      }),
  );
  return { feed, runFile };
}
