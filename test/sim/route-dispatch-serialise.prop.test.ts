import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serialise } from '../../src/sim/route-dispatch.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const text = fc.oneof(fc.string(), fc.constantFrom('0.0349715', '2000', '', '"', '\\', '\u2028', '\ud800', 'é'));
const pair = fc.tuple(text, text);
const levels = fc.array(pair, { maxLength: 8 });
const odd = fc.constantFrom<unknown>(undefined, null, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 0.1, true, false, [], [['a']], [['a', 1]], [['a', 'b', 'c']], [null], { a: 1 }, new Date(0), () => 1);
const value = fc.oneof(text, fc.double(), fc.integer(), levels, odd);
const body = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '1', '__proto__', 'toJSON', 'bids', 'asks')), value, { maxKeys: 6 });

describe('serialise', () => {
  it('gives JSON.stringify’s text of every body, whatever it holds', () => {
    fc.assert(
      fc.property(body, (answer) => {
        expect(serialise(answer)).toBe(JSON.stringify(answer));
      }),
      fuzzSettings({ numRuns: 3000 }),
    );
  });

  it('gives the text of the strings a level holds now, not of those it held when last serialised', () => {
    const level: [string, string] = ['0.0349', '2000'];
    const book = { lastUpdateId: 1, bids: [level], asks: [] as [string, string][] };
    expect(serialise(book)).toBe(JSON.stringify(book));
    level[1] = '1500';
    expect(serialise(book)).toBe('{"lastUpdateId":1,"bids":[["0.0349","1500"]],"asks":[]}');
  });

  it('serialises what is not an object as JSON.stringify does (null for what it leaves out)', () => {
    for (const answer of ['x', 1, null, true, undefined, [1, 'a'], [['a', 'b']]]) expect(serialise(answer)).toBe(JSON.stringify(answer) ?? 'null');
  });
});
