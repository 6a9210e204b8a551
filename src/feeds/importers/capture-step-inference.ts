/**
 * inferStep over a stream of values without keeping them: distinct texts are collected up to a
 * batch and folded into the step found so far (the GCD of the step and a batch is the GCD of
 * everything seen, since the step divides every earlier value). A capture repeats the same prices
 * and sizes endlessly, so the de-duplication leaves little work for the BigInt arithmetic.
 */
import { inferStep, type DecimalStep } from '../decimal-scale.ts';

const BATCH = 8_192;

/**
 * @example
 * const prices = new StepInference();
 * prices.add('61837.63000000'); prices.add('61837.60000000');
 * prices.result()?.text // '0.01'
 */
export class StepInference {
  private step: DecimalStep | undefined;
  private pending = new Set<string>();

  add(value: string): void {
    this.pending.add(value);
    if (this.pending.size >= BATCH) this.fold();
  }

  /** The largest step every value seen is a multiple of; undefined when all were zero (or none came). */
  result(): DecimalStep | undefined {
    this.fold();
    return this.step;
  }

  private fold(): void {
    if (this.pending.size === 0) return;
    const values = [...this.pending];
    if (this.step !== undefined) values.push(this.step.text);
    this.step = inferStep(values) ?? this.step;
    this.pending.clear();
  }
}
