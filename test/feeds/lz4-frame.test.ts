import fc from 'fast-check';
import lz4 from 'lz4js';
import { describe, expect, it } from 'vitest';
import { decodeLz4Frame, encodeLz4Frame, Lz4FrameError } from '../../src/feeds/lz4-frame.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

/** Bytes that look like a feed's columns: runs, repeats and noise. */
const contents = fc.oneof(
  fc.uint8Array({ maxLength: 3_000 }),
  fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 200 })), { maxLength: 30 }).map((parts) => {
    const out: number[] = [];
    for (const [chunk, times] of parts) for (let i = 0; i < times; i += 1) out.push(...chunk);
    return Uint8Array.from(out);
  }),
);

describe('LZ4 frames', () => {
  it('round-trip, and another implementation (lz4js) reads ours and we read its', () => {
    fc.assert(
      fc.property(contents, (data) => {
        const ours = encodeLz4Frame(data);
        expect(decodeLz4Frame(ours)).toEqual(data);
        expect(Uint8Array.from(lz4.decompress(ours))).toEqual(data);
        expect(decodeLz4Frame(lz4.compress(data), data.length)).toEqual(data);
      }),
      fuzzSettings({ numRuns: 200 }),
    );
  });

  it('compress repetitive columns and split content over 4 MiB into blocks', () => {
    const data = new Uint8Array(9 << 20);
    for (let i = 0; i < data.length; i += 1) data[i] = (i >> 12) & 0xff;
    const frame = encodeLz4Frame(data);
    expect(frame.length).toBeLessThan(data.length / 50);
    expect(Buffer.compare(Buffer.from(decodeLz4Frame(frame)), Buffer.from(data))).toBe(0);
  });

  it('never return wrong content from a damaged frame: it throws (or, where the damage changes nothing it decodes to, returns the original)', () => {
    const data = new Uint8Array(20_000);
    for (let i = 0; i < data.length; i += 1) data[i] = (i * 31) % 97 < 50 ? i % 7 : (i * 7919) & 0xff;
    const frame = encodeLz4Frame(data);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: frame.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, flip) => {
        const damaged = frame.slice();
        damaged[index] = damaged[index]! ^ flip;
        let decoded: Uint8Array | undefined;
        try {
          decoded = decodeLz4Frame(damaged);
        } catch (error) {
          expect(error).toBeInstanceOf(Lz4FrameError);
          return;
        }
        expect(Buffer.compare(Buffer.from(decoded), Buffer.from(data))).toBe(0);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
    expect(() => decodeLz4Frame(frame.subarray(0, frame.length - 3))).toThrow(Lz4FrameError);
  });
});
