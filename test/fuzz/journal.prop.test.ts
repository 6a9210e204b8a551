/**
 * Fuzzing the journal reader with damaged files: a flipped bit or spliced garbage anywhere, a cut at
 * any byte, a line repeated or two lines swapped. Opening either reads exactly the file's complete
 * lines, each byte-identical to a line that was written (a cut last line reported in
 * `truncatedBytes`), or throws JOURNAL_CORRUPT naming the line the damage is on, leaving the file as
 * it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseError } from '../../src/core/base-error.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { decodeJournalLine, summarizeIntent } from '../../src/execution/journal-record.ts';
import { journalPath, openJournal } from '../../src/execution/journal.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { MARKET_A, placement, requestIds, T0, TX, WALLET_ADDRESS } from '../execution/execution-support.ts';

const root = mkdtempSync(join(tmpdir(), 'clobbot-journal-fuzz-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let original: Buffer;
let run = 0;

beforeAll(() => {
  const clock = new VirtualClock(T0);
  const dir = join(root, 'source');
  const journal = openJournal({ clock }, { dir, network: 'sim', wallet: WALLET_ADDRESS });
  const nextId = requestIds(clock, 5);
  for (let i = 0; i < 6; i += 1) {
    const requestId = nextId();
    journal.append({ kind: 'signed', requestId, nonce: String(T0 + i), method: RelayMethod.executeReplaceBySlotPacked, intent: summarizeIntent(placement(MARKET_A)), body: `{"n":${i},"é":"💰"}` });
    journal.append({ kind: 'sent', requestId, transport: i % 2 === 0 ? 'ws' : 'rest' });
    if (i % 2 === 1) journal.append({ kind: 'response', requestId, status: 'BROADCAST', txHash: TX(i) });
  }
  journal.close();
  original = readFileSync(journal.path);
});

type Damage =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'splice'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'cut'; readonly at: number }
  | { readonly kind: 'repeat'; readonly line: number }
  | { readonly kind: 'swap'; readonly line: number }
  | { readonly kind: 'delete'; readonly line: number };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), weight: 4 },
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom(...['\n', '{}\n', ',"crc":"00000000"}\n', '\r'].map((text) => new Uint8Array(Buffer.from(text))))) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('repeat' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), line: fc.nat() }),
);

/** The damaged file, and the 1-based line of the original the damage touched first. */
function damaged(bytes: Buffer, change: Damage): { readonly bytes: Buffer; readonly line: number } {
  const lineOf = (offset: number) => bytes.subarray(0, offset).filter((byte) => byte === 0x0a).length + 1;
  const lines = bytes.toString('utf8').split('\n').slice(0, -1);
  switch (change.kind) {
    case 'flip': {
      const at = change.at % bytes.length;
      const copy = Buffer.from(bytes);
      copy[at] = copy[at]! ^ (1 << change.bit);
      return { bytes: copy, line: lineOf(at) };
    }
    case 'splice': {
      const at = change.at % (bytes.length + 1);
      // Bytes that start with a newline, put just before a line's own newline, leave that line whole:
      // the first damaged line is the one they start.
      const whole = change.bytes[0] === 0x0a && bytes[at] === 0x0a;
      return { bytes: Buffer.concat([bytes.subarray(0, at), change.bytes, bytes.subarray(at)]), line: lineOf(at) + (whole ? 1 : 0) };
    }
    case 'cut': {
      const at = change.at % bytes.length;
      return { bytes: bytes.subarray(0, at), line: lineOf(at) };
    }
    case 'repeat': {
      const index = change.line % lines.length;
      lines.splice(index, 0, lines[index]!);
      return { bytes: Buffer.from(`${lines.join('\n')}\n`), line: index + 2 };
    }
    case 'swap': {
      const index = change.line % (lines.length - 1);
      [lines[index], lines[index + 1]] = [lines[index + 1]!, lines[index]!];
      // The line moved up no longer follows the one before it.
      return { bytes: Buffer.from(`${lines.join('\n')}\n`), line: index + 1 };
    }
    case 'delete': {
      // The line after it no longer follows the one before it. The last line deleted leaves a
      // journal that is whole as far as it goes (as if its append had never been made).
      const index = change.line % lines.length;
      lines.splice(index, 1);
      return { bytes: Buffer.from(lines.map((line) => `${line}\n`).join('')), line: index + 1 };
    }
  }
}

describe('journal fuzz', () => {
  it('a damaged journal is read exactly as far as it is whole, or refused at the damaged line, changing nothing', () => {
    const written = new Set(original.toString('utf8').split('\n').slice(0, -1));
    let refused = 0;
    fc.assert(
      fc.property(damage, (change) => {
        const { bytes, line } = damaged(original, change);
        const dir = join(root, `run-${(run += 1)}`);
        const path = journalPath({ dir, network: 'sim', wallet: WALLET_ADDRESS });
        // The directory must exist before the file: let openJournal make it on a first, empty open.
        openJournal({ clock: new VirtualClock(T0) }, { dir, network: 'sim', wallet: WALLET_ADDRESS }).close();
        writeFileSync(path, bytes);
        let journal;
        try {
          journal = openJournal({ clock: new VirtualClock(T0) }, { dir, network: 'sim', wallet: WALLET_ADDRESS });
        } catch (error) {
          refused += 1;
          expect(error).toBeInstanceOf(BaseError);
          expect((error as BaseError).code).toBe('JOURNAL_CORRUPT');
          // Named at the first damaged line (a repeat, swap or deletion shows where the links break).
          expect((error as BaseError).details['line']).toBe(line);
          expect((error as BaseError).message).toContain(`${path} line ${line}:`);
          expect(readFileSync(path).equals(bytes)).toBe(true);
          return;
        }
        const end = bytes.lastIndexOf(0x0a) + 1;
        const complete = bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
        expect(journal.restored.records).toBe(complete.length);
        expect(journal.restored.truncatedBytes).toBe(bytes.length - end);
        // Every line read is one that was written: no damage was taken for a record.
        for (const text of complete) expect(written.has(text)).toBe(true);
        journal.close();
        expect(readFileSync(path).equals(bytes.subarray(0, end))).toBe(true);
      }),
      fuzzSettings({ numRuns: 80 }),
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('decodeJournalLine: any text is a record or JOURNAL_CORRUPT with the line, never anything else', () => {
    const lines = original.toString('utf8').split('\n').slice(0, -1);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...lines), fc.string({ unit: 'binary', maxLength: 300 }), fc.json().map((json) => `${json.slice(0, -1)},"crc":"00000000"}`)), fc.nat({ max: 10_000 }), (text, lineNumber) => {
        let outcome: unknown;
        try {
          outcome = decodeJournalLine(text, { path: 'j.jsonl', lineNumber });
        } catch (error) {
          outcome = error;
        }
        // Only a line that was written reads; anything else is corruption at its line.
        if (lines.includes(text)) expect(outcome).toMatchObject({ kind: expect.any(String), seq: expect.any(Number) });
        else expect(outcome).toMatchObject({ name: 'BaseError', code: 'JOURNAL_CORRUPT', details: { line: lineNumber, path: 'j.jsonl' } });
      }),
      fuzzSettings({ numRuns: 200 }),
    );
  });
});
