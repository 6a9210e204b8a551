import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { cancelBehindProbability, probabilisticQueue } from '../../src/backtest/probabilistic-queue.ts';
import { createQueueModel, QUEUE_MODELS, queueModelConfigSchema, type QueueModel, type QueuePosition } from '../../src/backtest/queue-model.ts';
import { riskAverseQueue } from '../../src/backtest/risk-averse-queue.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type Step =
  | { readonly trade: bigint }
  | { readonly depth: readonly [previous: bigint, next: bigint] };

/** Applies the steps and returns, per step, the estimate after it and the fill taken right after it. */
function run(model: QueueModel, displayed: bigint, steps: readonly Step[]): { ahead: number; filled: bigint }[] {
  const position = model.place(displayed);
  return steps.map((step) => {
    if ('trade' in step) model.onTrade(position, step.trade);
    else model.onDepth(position, step.depth[0], step.depth[1]);
    const ahead = position.ahead;
    return { ahead, filled: model.takeFilled(position) };
  });
}

describe('riskAverseQueue', () => {
  const model = riskAverseQueue();

  it('places the order behind everything displayed, or at the front for a price improvement', () => {
    expect(model.place(7n)).toEqual({ ahead: 7, tradedSinceDepth: 0 });
    const improving = model.place(0n);
    expect(model.front(improving)).toBe(0);
    model.onTrade(improving, 2n);
    expect(model.takeFilled(improving)).toBe(2n);
  });

  it('moves up on trades, on a level shrinking below it, never on increases, and fills whole lots', () => {
    const table: [Step, number, bigint][] = [
      [{ trade: 2n }, 3, 0n], // 5 ahead, 2 traded
      [{ depth: [3n, 8n] }, 3, 0n], // others join behind
      [{ depth: [8n, 6n] }, 3, 0n], // a cancel: assumed behind
      [{ depth: [6n, 2n] }, 2, 0n], // the level shrank below the estimate
      [{ trade: 3n }, -1, 1n], // one lot past the order: a fill, back to 0
      [{ depth: [0n, 4n] }, 0, 0n], // at the front, joins behind do not matter
      [{ trade: 2n }, -2, 2n], // repeated fills
      [{ trade: 0n }, 0, 0n],
    ];
    const results = run(model, 5n, table.map(([step]) => step));
    expect(results).toEqual(table.map(([, ahead, filled]) => ({ ahead, filled })));
  });

  it('takes a fill only once', () => {
    const position = model.place(1n);
    model.onTrade(position, 4n);
    expect(model.front(position)).toBe(0);
    expect(model.takeFilled(position)).toBe(3n);
    expect(model.takeFilled(position)).toBe(0n);
    expect(position.ahead).toBe(0);
  });
});

describe('probabilisticQueue (power 3)', () => {
  const model = probabilisticQueue();

  it('credits none of a cancel to the queue ahead when the order is last in the level', () => {
    // front 10, back 0: prob behind = 1 - (10/10)^3 = 0, the 4 cancelled lots were all ahead.
    expect(run(model, 10n, [{ depth: [10n, 6n] }])).toEqual([{ ahead: 6, filled: 0n }]);
  });

  it('splits a cancel between ahead and behind by 1 - (front / (front + back))^3', () => {
    // place 10; 4 join behind (an increase does not move the order); then 2 are cancelled:
    // front 10, back 4, prob = 1 - (10/14)^3 = 218/343, est = 10 - (125/343) * 2 + min(4 - (218/343) * 2, 0)
    const [joined, cancelled] = run(model, 10n, [{ depth: [10n, 14n] }, { depth: [14n, 12n] }]);
    expect(joined).toEqual({ ahead: 10, filled: 0n });
    expect(cancelled!.ahead).toBeCloseTo(10 - 250 / 343, 12);
    expect(cancelled!.filled).toBe(0n);
  });

  it('takes what the queue behind cannot absorb from the queue ahead', () => {
    // place 4; 2 join behind; 5 cancelled: front 4, back 2, prob = 1 - (4/6)^3 = 19/27,
    // est = 4 - (8/27) * 5 + min(2 - (19/27) * 5, 0) = 4 - 40/27 - 41/27 = 1
    const [, cancelled] = run(model, 4n, [{ depth: [4n, 6n] }, { depth: [6n, 1n] }]);
    expect(cancelled!.ahead).toBeCloseTo(1, 12);
  });

  it('does not count a decrease twice when trades explain it', () => {
    // 3 traded: ahead 7 and the level 10 -> 7 is no cancel. Then 2 cancelled with all 7 ahead: 5.
    const results = run(model, 10n, [{ trade: 3n }, { depth: [10n, 7n] }, { depth: [7n, 5n] }]);
    expect(results).toEqual([
      { ahead: 7, filled: 0n },
      { ahead: 7, filled: 0n },
      { ahead: 5, filled: 0n },
    ]);
  });

  it('counts the rest of a decrease beyond the trades as a cancel', () => {
    // place 10, 4 join behind (14); 2 traded (ahead 8) and the level 14 -> 10: 2 of the 4 are a cancel.
    // front 8, back 6, prob = 1 - (8/14)^3 = 1 - 64/343; est = 8 - (64/343) * 2 + min(6 - (279/343) * 2, 0)
    const results = run(model, 10n, [{ depth: [10n, 14n] }, { trade: 2n }, { depth: [14n, 10n] }]);
    expect(results[2]!.ahead).toBeCloseTo(8 - 128 / 343, 12);
  });

  it('fills whole lots only, repeatedly, and once per lot', () => {
    // as above 10 - 250/343 = 9.27…; 10 traded leaves -0.72…: no whole lot yet (the fraction is dropped,
    // which loses nothing: trades are whole lots); the next lot fills, then 3 more.
    const results = run(model, 10n, [{ depth: [10n, 14n] }, { depth: [14n, 12n] }, { trade: 10n }, { trade: 1n }, { depth: [1n, 0n] }, { trade: 3n }]);
    expect(results.map((r) => r.filled)).toEqual([0n, 0n, 0n, 1n, 0n, 3n]);
    expect(results[2]!.ahead).toBeCloseTo(-250 / 343, 12);
  });

  it('never lets a cancel fill the order, even with a power below 1', () => {
    // power 0.5: front 1, back 99, everything cancelled: est = 1 - 0.1 * 100 + min(99 - 90, 0) = -9 -> 0
    const results = run(probabilisticQueue({ power: 0.5 }), 1n, [{ depth: [1n, 100n] }, { depth: [100n, 0n] }]);
    expect(results[1]).toEqual({ ahead: 0, filled: 0n });
  });

  it('with power 1 splits a cancel in proportion to the queue ahead and behind', () => {
    // front 10, back 10, prob 0.5: est = 10 - 0.5 * 10 + min(10 - 5, 0) = 5
    expect(run(probabilisticQueue({ power: 1 }), 10n, [{ depth: [10n, 20n] }, { depth: [20n, 10n] }])[1]).toEqual({ ahead: 5, filled: 0n });
  });

  it('has the probability function of hftbacktest PowerProbQueueFunc3', () => {
    expect(cancelBehindProbability(1, 1, 3)).toBe(0.875);
    expect(cancelBehindProbability(0, 5, 3)).toBe(1);
    expect(cancelBehindProbability(5, 0, 3)).toBe(0);
    expect(cancelBehindProbability(0, 0, 3)).toBe(1);
  });
});

describe('the queue model registry', () => {
  it('parses configs strictly, defaulting the power to 3', () => {
    expect(queueModelConfigSchema.parse({ model: 'probabilistic' })).toEqual({ model: 'probabilistic', power: 3 });
    expect(queueModelConfigSchema.parse({ model: 'risk-averse' })).toEqual({ model: 'risk-averse' });
    for (const bad of [{ model: 'fifo' }, { model: 'risk-averse', power: 3 }, { model: 'probabilistic', power: 0 }, { model: 'probabilistic', power: -1 }, {}]) {
      expect(queueModelConfigSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('creates each model with its params for the manifest', () => {
    expect(createQueueModel({ model: 'risk-averse' })).toMatchObject({ name: 'risk-averse', params: {} });
    expect(createQueueModel({ model: 'probabilistic' })).toMatchObject({ name: 'probabilistic', params: { power: 3 } });
    expect(createQueueModel({ model: 'probabilistic', power: 2 }).params).toEqual({ power: 2 });
    expect(Object.keys(QUEUE_MODELS).sort()).toEqual(['probabilistic', 'risk-averse']);
  });

  it('throws CONFIG_INVALID for a bad config', () => {
    for (const bad of [{ model: 'fifo' }, { model: 'probabilistic', power: 0 }, { model: 'risk-averse', extra: 1 }, 'risk-averse']) {
      let caught: unknown;
      try {
        createQueueModel(bad);
      } catch (error) {
        caught = error;
      }
      expect(isBaseError(caught, 'CONFIG_INVALID'), JSON.stringify(bad)).toBe(true);
    }
    expect(() => probabilisticQueue({ power: Number.NaN })).toThrow(/power/);
  });

  it('follows the createQueueModel example', () => {
    const model = createQueueModel({ model: 'probabilistic' });
    const position = model.place(12n);
    model.onTrade(position, 15n);
    expect(model.takeFilled(position)).toBe(3n);
  });
});

describe('queue model properties', () => {
  const lots = fc.bigInt({ min: 0n, max: 40n });
  const event = fc.oneof(
    lots.map((trade) => ({ trade })),
    lots.map((next) => ({ next })),
  );
  const scenario = fc.record({
    displayed: lots,
    power: fc.constantFrom(0.25, 0.5, 1, 2, 3, 5),
    events: fc.array(event, { maxLength: 60 }),
  });

  /** Replays one scenario through a model, keeping the displayed level as the backtester would. */
  function replay(model: QueueModel, displayed: bigint, events: readonly ({ trade: bigint } | { next: bigint })[], check: (position: QueuePosition, level: bigint, isDepth: boolean) => void) {
    const position = model.place(displayed);
    let level = displayed;
    const fills: bigint[] = [];
    for (const e of events) {
      if ('trade' in e) model.onTrade(position, e.trade);
      else {
        model.onDepth(position, level, e.next);
        level = e.next;
      }
      check(position, level, !('trade' in e));
      fills.push(model.takeFilled(position));
    }
    return fills;
  }

  it('never estimates more ahead than displayed after a depth update', () => {
    fc.assert(
      fc.property(scenario, ({ displayed, power, events }) => {
        for (const model of [riskAverseQueue(), probabilisticQueue({ power })]) {
          replay(model, displayed, events, (position, level, isDepth) => {
            if (isDepth) expect(position.ahead).toBeLessThanOrEqual(Number(level));
            expect(model.front(position)).toBeGreaterThanOrEqual(0);
          });
        }
      }),
      fuzzSettings(),
    );
  });

  it('fills non-negative whole lots, never more in total than the lots traded', () => {
    fc.assert(
      fc.property(scenario, ({ displayed, power, events }) => {
        const traded = events.reduce((sum, e) => sum + ('trade' in e ? e.trade : 0n), 0n);
        for (const model of [riskAverseQueue(), probabilisticQueue({ power })]) {
          const fills = replay(model, displayed, events, () => {});
          for (const fill of fills) expect(typeof fill === 'bigint' && fill >= 0n).toBe(true);
          expect(fills.reduce((a, b) => a + b, 0n)).toBeLessThanOrEqual(traded);
        }
      }),
      fuzzSettings(),
    );
  });

  it('risk-averse never fills earlier (or more) than probabilistic for the same events', () => {
    // Holds because the probabilistic estimate starts equal and each step keeps it at or below the
    // risk-averse one: trades subtract the same, and a depth update takes min(new, x) of something
    // no larger than the old estimate in both models.
    fc.assert(
      fc.property(scenario, ({ displayed, power, events }) => {
        const averse = replay(riskAverseQueue(), displayed, events, () => {});
        const probable = replay(probabilisticQueue({ power }), displayed, events, () => {});
        let sumAverse = 0n;
        let sumProbable = 0n;
        for (let i = 0; i < events.length; i++) {
          sumAverse += averse[i]!;
          sumProbable += probable[i]!;
          expect(sumAverse).toBeLessThanOrEqual(sumProbable);
        }
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('is not vacuous: probabilistic can fill where risk-averse does not', () => {
    // 10 join behind, 10 cancelled: risk-averse keeps 10 ahead; probabilistic (front 10, back 10,
    // prob 1 - 1/8) keeps 10 - 0.125 * 10 = 8.75. Then 10 lots trade.
    const steps: Step[] = [{ depth: [10n, 20n] }, { depth: [20n, 10n] }, { trade: 10n }];
    expect(run(riskAverseQueue(), 10n, steps).map((r) => r.filled)).toEqual([0n, 0n, 0n]);
    expect(run(probabilisticQueue(), 10n, steps).map((r) => r.filled)).toEqual([0n, 0n, 1n]);
  });

  it('keeps the risk-averse estimate a whole number of lots', () => {
    fc.assert(
      fc.property(scenario, ({ displayed, events }) => {
        replay(riskAverseQueue(), displayed, events, (position) => expect(Number.isInteger(position.ahead)).toBe(true));
      }),
      fuzzSettings(),
    );
  });
});
