/** The assertion every invariant test makes: which invariant broke, when, and what the message says. */
import { expect } from 'vitest';
import type { InvariantViolation } from '../../../src/testing/invariants/index.ts';

export function expectViolation(violation: InvariantViolation | undefined, invariant: string, at: number, ...fragments: readonly string[]): InvariantViolation {
  expect(violation, 'expected a violation').toBeDefined();
  expect(violation!.invariant).toBe(invariant);
  expect(violation!.at).toBe(at);
  for (const fragment of fragments) expect(violation!.message).toContain(fragment);
  return violation!;
}
