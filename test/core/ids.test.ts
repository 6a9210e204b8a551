import { describe, expect, it } from 'vitest';
import { createIdSource } from '../../src/core/ids.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';

const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createIdSource', () => {
  it('makes lowercase UUIDv7 ids whose time is the clock time', () => {
    const clock = new VirtualClock(Date.UTC(2024, 7, 8, 23, 54));
    const id = createIdSource({ clock, random: seededRandom(1) }).next();
    expect(id).toMatch(uuidv7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(clock.now());
  });

  it('is deterministic for a seed and different across seeds', () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const a = createIdSource({ clock, random: seededRandom(42) });
    const b = createIdSource({ clock, random: seededRandom(42) });
    const c = createIdSource({ clock, random: seededRandom(43) });
    const fromA = [a.next(), a.next()];
    expect([b.next(), b.next()]).toEqual(fromA);
    expect(c.next()).not.toBe(fromA[0]);
  });

  it('stays strictly increasing within one millisecond and when the clock stands still', () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const source = createIdSource({ clock, random: seededRandom(7) });
    const ids = Array.from({ length: 5_000 }, () => source.next());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses the OS random source when none is given', () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const first = createIdSource({ clock }).next();
    const second = createIdSource({ clock }).next();
    expect(first).toMatch(uuidv7);
    expect(first).not.toBe(second);
  });
});
