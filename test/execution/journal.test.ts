import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { encodeJournalLine, journalLineCrc, summarizeIntent, type JournalRecord } from '../../src/execution/journal-record.ts';
import { compactionTempPath, journalPath, openJournal, type Journal } from '../../src/execution/journal.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signBatchIntent } from '../../src/protocol/intent-signing.ts';
import type { BatchIntent } from '../../src/protocol/intent-types.ts';
import { encodeRelayRestRequest } from '../../src/protocol/relay-request.ts';
import { hasCode, MARKET_A, MARKET_B, placement, requestIds, slotCancel, spyFs, T0, tempDir, TX, WALLET_ADDRESS } from './execution-support.ts';

const BODY = '{"requestId":"x","method":"wallet.execute_batch"}';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('journal', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: VirtualClock;
  let nextId: () => string;
  const open: Journal[] = [];

  const openHere = (fs?: ReturnType<typeof spyFs>['fs']) => {
    const journal = openJournal({ clock, ...(fs ? { fs } : {}) }, { dir: tmp.dir, network: 'testnet', wallet: WALLET_ADDRESS });
    open.push(journal);
    return journal;
  };
  const reopen = (journal: Journal) => {
    journal.close();
    return openHere();
  };
  const lines = (journal: Journal) => readFileSync(journal.path, 'utf8').split('\n').filter((line) => line !== '');

  /** A: settled; B: sent, UNKNOWN answer; C: signed only; then a nonce floor above every signed nonce. */
  function scenario(journal: Journal) {
    const [a, b, c] = [nextId(), nextId(), nextId()];
    const signed = (requestId: string, nonce: bigint) =>
      journal.append({
        kind: 'signed',
        requestId,
        nonce: nonce.toString(),
        method: RelayMethod.executeBatch,
        intent: summarizeIntent(placement(MARKET_A)),
        body: BODY,
      });
    signed(a, 1000n);
    journal.append({ kind: 'sent', requestId: a, transport: 'ws' });
    clock.advanceBy(5);
    journal.append({ kind: 'response', requestId: a, status: 'BROADCAST', txHash: TX(1) });
    journal.append({ kind: 'outcome', requestId: a, txHash: TX(1), status: 'CONFIRMED', blockNumber: '12' });
    journal.append({ kind: 'resolved', requestId: a, how: 'outcome', status: 'CONFIRMED', txHash: TX(1) });
    signed(b, 1001n);
    journal.append({ kind: 'sent', requestId: b, transport: 'ws' });
    journal.append({ kind: 'response', requestId: b, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false, txHash: TX(2) });
    journal.append({ kind: 'sent', requestId: b, transport: 'rest' });
    signed(c, 1002n);
    return { a, b, c };
  }

  beforeEach(() => {
    tmp = tempDir();
    clock = new VirtualClock(T0);
    nextId = requestIds(clock);
  });
  afterEach(() => {
    for (const journal of open.splice(0)) journal.close();
    tmp.remove();
  });

  it('names its file by network and lowercase wallet, mode 0600', () => {
    const journal = openJournal({ clock }, { dir: tmp.dir, network: 'testnet', wallet: WALLET_ADDRESS.toUpperCase().replace('0X', '0x') });
    open.push(journal);
    expect(journal.path).toBe(join(tmp.dir, `testnet-${WALLET_ADDRESS}.journal.jsonl`));
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
    for (const bad of [{ network: '../x' }, { network: 'Test Net' }, { wallet: '0x12' }]) {
      const error = thrown(() => journalPath({ dir: tmp.dir, network: 'testnet', wallet: WALLET_ADDRESS, ...bad }));
      expect(hasCode(error, 'JOURNAL_UNAVAILABLE')).toBe(true);
    }
  });

  it('creates a missing directory and fsyncs the new entries', () => {
    const spy = spyFs();
    const dir = join(tmp.dir, 'state', 'journals');
    const journal = openJournal({ clock, fs: spy.fs }, { dir, network: 'sim', wallet: WALLET_ADDRESS });
    open.push(journal);
    expect(existsSync(journal.path)).toBe(true);
    const synced = spy.calls.filter((call) => call.op === 'fsyncSync').map((call) => call.path);
    // The new directory's parent, the lock (this process holds the journal), the journal, the directory.
    expect(synced).toEqual([join(tmp.dir, 'state'), `${journal.path}.lock`, journal.path, dir]);
  });

  it('starts empty', () => {
    const journal = openHere();
    expect(journal.restored).toEqual({ nonceFloor: 0n, unresolved: [], records: 0, truncatedBytes: 0, removedTempFile: false });
  });

  it('round-trips: the reopened journal restores the nonce floor and every unresolved request', () => {
    const journal = openHere();
    const { b, c } = scenario(journal);
    journal.append({ kind: 'nonce-floor', nonce: '5000' });
    const before = journal.unresolved();
    expect(before.map((request) => request.requestId)).toEqual([b, c]);
    expect(before[0]).toMatchObject({
      nonce: 1001n,
      method: 'wallet.execute_batch',
      intent: { type: 'PlaceAndCancel', market: MARKET_A, purpose: 'quotes' },
      body: BODY,
      sends: ['ws', 'rest'],
      response: { status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN' },
      outcome: undefined,
      txHash: TX(2),
    });
    expect(before[1]).toMatchObject({ nonce: 1002n, sends: [], response: undefined, txHash: undefined });

    const again = reopen(journal);
    expect(again.restored.nonceFloor).toBe(5000n);
    expect(again.restored.records).toBe(11);
    expect(again.restored.unresolved).toEqual(before);
    expect(again.unresolved()).toEqual(before);
    expect(again.get(b)?.sends).toEqual(['ws', 'rest']);
  });

  it('writes one JSON object per line with an increasing seq, the clock time, the checksum of the line before and a CRC-32', () => {
    const journal = openHere();
    scenario(journal);
    const records = lines(journal).map((line) => JSON.parse(line) as JournalRecord & { prev: string; crc: string });
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
    records.forEach((record, index) => {
      expect(record.crc).toMatch(/^[0-9a-f]{8}$/);
      expect(record.prev).toBe(index === 0 ? '00000000' : records[index - 1]!.crc);
      expect(record.at).toBeGreaterThanOrEqual(T0);
    });
    expect(records[0]).toMatchObject({ kind: 'signed', nonce: '1000', txHash: null, intent: { type: 'PlaceAndCancel' } });
    const { crc: _crc, prev, ...second } = records[1]!;
    expect(encodeJournalLine(second as JournalRecord, prev)).toBe(`${lines(journal)[1]}\n`);
  });

  it('refuses a journal from which a whole line was deleted, naming the line after it', () => {
    const journal = openHere();
    scenario(journal);
    journal.close();
    const text = lines(journal);
    for (const deleted of [0, 3]) {
      writeFileSync(journal.path, `${text.filter((_, index) => index !== deleted).join('\n')}\n`);
      const error = thrown(() => openHere());
      expect((error as { details: unknown }).details).toMatchObject({ line: deleted + 1, problem: 'link-broken' });
      expect((error as Error).message).toContain(`line ${deleted + 1}: it names ${(JSON.parse(text[deleted + 1]!) as { prev: string }).prev} as the checksum of the line before it`);
    }
  });

  it('reads a journal written before lines were linked, and links what it appends and compacts', () => {
    const journal = openHere();
    scenario(journal);
    journal.close();
    // The same records in the old format: no `prev`, the CRC of the record alone.
    const old = lines(journal).map((line) => {
      const { crc: _crc, prev: _prev, ...record } = JSON.parse(line) as JournalRecord & { prev: string; crc: string };
      const body = JSON.stringify(record);
      return `${body.slice(0, -1)},"crc":"${crc32(body).toString(16).padStart(8, '0')}"}`;
    });
    writeFileSync(journal.path, `${old.join('\n')}\n`);
    const again = openHere();
    expect(again.restored.records).toBe(old.length);
    again.append({ kind: 'nonce-floor', nonce: '9000' });
    const appended = JSON.parse(lines(again).at(-1)!) as { prev: string };
    expect(appended.prev).toBe(old.at(-1)!.slice(-10, -2));
    expect(reopen(again).restored.nonceFloor).toBe(9000n);
    // An old line after a linked one is not an old journal: refused.
    writeFileSync(journal.path, `${[...lines(journal), old[0]].join('\n')}\n`);
    expect((thrown(() => openHere()) as { details: unknown }).details).toMatchObject({ line: old.length + 2, problem: 'link-broken' });
  });

  it('ignores and truncates a torn last line', () => {
    const journal = openHere();
    const { b, c } = scenario(journal);
    const expected = journal.unresolved();
    journal.close();
    const size = statSync(journal.path).size;
    const torn = encodeJournalLine({ seq: 99, at: T0, kind: 'resolved', requestId: b, how: 'receipt', status: 'CONFIRMED' });
    appendFileSync(journal.path, torn.slice(0, 40));

    const again = openHere();
    expect(again.restored.truncatedBytes).toBe(40);
    expect(again.restored.unresolved).toEqual(expected);
    expect(statSync(again.path).size).toBe(size);
    again.append({ kind: 'resolved', requestId: c, how: 'never-sent', status: 'NOT_SENT' });
    expect(reopen(again).restored.unresolved.map((request) => request.requestId)).toEqual([b]);
  });

  it('drops a complete last record that lacks only its newline (its append never returned)', () => {
    const journal = openHere();
    const { b } = scenario(journal);
    journal.close();
    const line = encodeJournalLine({ seq: 99, at: T0, kind: 'resolved', requestId: b, how: 'receipt', status: 'CONFIRMED' });
    appendFileSync(journal.path, line.slice(0, -1));
    const again = openHere();
    expect(again.restored.truncatedBytes).toBe(line.length - 1);
    expect(again.get(b)).toBeDefined();
  });

  it('refuses a last record whose newline was damaged: an acknowledged record is never dropped as torn', () => {
    const journal = openHere();
    const { b } = scenario(journal);
    const lines = journal.recordCount();
    journal.close();
    const line = encodeJournalLine({ seq: 99, at: T0, kind: 'resolved', requestId: b, how: 'receipt', status: 'CONFIRMED' });
    // The newline with one bit flipped ('\n' 0x0a -> 0x0b), as a bad disk would leave it.
    appendFileSync(journal.path, `${line.slice(0, -1)}\u000b`);
    const before = readFileSync(journal.path);
    const error = thrown(() => openHere());
    expect(hasCode(error, 'JOURNAL_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain(`line ${lines + 1}: a complete record is followed by`);
    // Nothing was truncated.
    expect(readFileSync(journal.path)).toEqual(before);
  });

  it('refuses a damaged line in the middle with JOURNAL_CORRUPT naming the line', () => {
    const journal = openHere();
    scenario(journal);
    journal.close();
    const text = lines(journal);
    text[2] = text[2]!.replace('"BROADCAST"', '"BROADCASX"');
    writeFileSync(journal.path, `${text.join('\n')}\n`);
    const error = thrown(() => openHere());
    expect(hasCode(error, 'JOURNAL_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain('line 3');
    expect((error as { details: unknown }).details).toMatchObject({ line: 3, problem: 'checksum-mismatch', path: journal.path });
  });

  it('refuses a damaged complete last line too: only an unterminated tail counts as torn', () => {
    const journal = openHere();
    scenario(journal);
    journal.close();
    const text = lines(journal);
    text[text.length - 1] = text.at(-1)!.replace('1002', '1003');
    writeFileSync(journal.path, `${text.join('\n')}\n`);
    const error = thrown(() => openHere());
    expect((error as { details: unknown }).details).toMatchObject({ line: text.length, problem: 'checksum-mismatch' });
  });

  it('refuses lines out of order and lines without a checksum', () => {
    const journal = openHere();
    scenario(journal);
    journal.close();
    const text = lines(journal);
    const swapped = [...text];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    writeFileSync(journal.path, `${swapped.join('\n')}\n`);
    // The line moved up does not follow the one before it.
    expect((thrown(() => openHere()) as { details: unknown }).details).toMatchObject({ line: 4, problem: 'link-broken' });
    // Linked lines whose seq goes back: a writer's fault, refused all the same.
    const records = text.map((line) => JSON.parse(line) as JournalRecord & { prev: string; crc: string });
    const relinked: string[] = [];
    for (const { crc: _crc, prev: _prev, ...record } of [records[0]!, records[2]!, records[1]!]) {
      relinked.push(encodeJournalLine(record as JournalRecord, relinked.length === 0 ? undefined : journalLineCrc(relinked.at(-1)!)));
    }
    writeFileSync(journal.path, relinked.join(''));
    expect((thrown(() => openHere()) as { details: unknown }).details).toMatchObject({ line: 3, problem: 'seq-not-increasing' });
    writeFileSync(journal.path, `${text[0]}\n{"seq":2}\n${text[1]}\n`);
    expect((thrown(() => openHere()) as { details: unknown }).details).toMatchObject({ line: 2, problem: 'checksum-missing' });
  });

  it('refuses records that break a rule, writing nothing', () => {
    const journal = openHere();
    const { a, b } = scenario(journal);
    const size = statSync(journal.path).size;
    const refused = (input: Parameters<Journal['append']>[0]) => {
      const error = thrown(() => journal.append(input));
      expect(hasCode(error, 'JOURNAL_RECORD_INVALID'), String(error)).toBe(true);
      return error as Error;
    };
    const signed = { kind: 'signed', method: RelayMethod.executeBatch, intent: null, body: BODY } as const;
    expect(refused({ ...signed, requestId: nextId(), nonce: '1002' }).message).toContain('never reused');
    refused({ ...signed, requestId: b, nonce: '2000' });
    refused({ ...signed, requestId: 'not-a-uuid', nonce: '2000' });
    refused({ ...signed, requestId: nextId(), nonce: '01' });
    refused({ kind: 'sent', requestId: a, transport: 'ws' });
    refused({ kind: 'resolved', requestId: a, how: 'outcome', status: 'CONFIRMED' });
    refused({ kind: 'sent', requestId: b, transport: 'ws', jwt: 'x' } as never);
    expect(statSync(journal.path).size).toBe(size);
    // A late answer for a settled request is an observation: kept, and it changes nothing.
    journal.append({ kind: 'outcome', requestId: a, txHash: TX(1), status: 'CONFIRMED' });
    expect(reopen(journal).restored.unresolved.map((request) => request.requestId)).toEqual([b, expect.any(String)]);
  });

  it('fsyncs each record on its own, after writing it and before append returns', () => {
    const spy = spyFs();
    const journal = openHere(spy.fs);
    spy.calls.length = 0;
    scenario(journal);
    const writes = spy.calls.filter((call) => call.op === 'writeSync' || call.op === 'fsyncSync');
    expect(writes.length).toBe(2 * journal.recordCount());
    writes.forEach((call, index) => {
      expect(call.op).toBe(index % 2 === 0 ? 'writeSync' : 'fsyncSync');
      expect(call.path).toBe(journal.path);
    });
  });

  it('fails fast after a failed write; reopening drops the partial line', () => {
    const spy = spyFs();
    const journal = openHere(spy.fs);
    const { b } = scenario(journal);
    spy.crashAt(0); // the next call: the write of the next record, half done
    const error = thrown(() => journal.append({ kind: 'sent', requestId: b, transport: 'ws' }));
    expect(hasCode(error, 'JOURNAL_UNAVAILABLE')).toBe(true);
    expect(hasCode(thrown(() => journal.append({ kind: 'sent', requestId: b, transport: 'ws' })), 'JOURNAL_UNAVAILABLE')).toBe(true);
    spy.closeLeftovers();
    const again = openHere();
    expect(again.restored.truncatedBytes).toBeGreaterThan(0);
    expect(again.get(b)?.sends).toEqual(['ws', 'rest']);
  });

  it('compacts to the unresolved requests and the nonce floor, and keeps appending', () => {
    const journal = openHere();
    const { b, c } = scenario(journal);
    const unresolved = journal.unresolved();
    const lastSeq = journal.recordCount();
    journal.append({ kind: 'resolved', requestId: c, how: 'never-sent', status: 'NOT_SENT' });
    const expected = journal.unresolved();
    expect(journal.compact()).toEqual({ before: lastSeq + 1, after: 5 });
    expect(journal.unresolved()).toEqual(expected);
    expect(journal.nonceFloor()).toBe(1002n);

    const records = lines(journal).map((line) => JSON.parse(line) as JournalRecord);
    expect(records.map((record) => record.kind)).toEqual(['signed', 'sent', 'response', 'sent', 'nonce-floor']);
    expect(records.slice(0, 4).every((record) => 'requestId' in record && record.requestId === b)).toBe(true);
    expect(records[4]).toMatchObject({ kind: 'nonce-floor', nonce: '1002', seq: lastSeq + 2 });
    expect(existsSync(compactionTempPath(journal.path))).toBe(false);

    const next = journal.append({ kind: 'outcome', requestId: b, txHash: TX(2), status: 'DROPPED' });
    expect(next.seq).toBe(lastSeq + 3);
    const again = reopen(journal);
    expect(again.restored.nonceFloor).toBe(1002n);
    expect(again.restored.unresolved).toEqual([{ ...expected[0]!, outcome: next }]);
    expect(unresolved.length).toBe(2);
  });

  it('keeps the nonce floor through compaction when every request is settled', () => {
    const journal = openHere();
    const { b, c } = scenario(journal);
    journal.append({ kind: 'resolved', requestId: b, how: 'receipt', status: 'REVERTED' });
    journal.append({ kind: 'resolved', requestId: c, how: 'never-sent', status: 'NOT_SENT' });
    journal.compact();
    expect(lines(journal)).toHaveLength(1);
    const again = reopen(journal);
    expect(again.restored).toMatchObject({ nonceFloor: 1002n, unresolved: [], records: 1 });
    const error = thrown(() =>
      again.append({ kind: 'signed', requestId: nextId(), nonce: '1002', method: RelayMethod.cancelTrigger, intent: null, body: BODY }),
    );
    expect(hasCode(error, 'JOURNAL_RECORD_INVALID')).toBe(true);
  });

  it('keeps the newest ledger checkpoint through compaction and restores it', () => {
    const journal = openHere();
    const { b, c } = scenario(journal);
    const ledger = (position: string) => ({
      kind: 'ledger' as const,
      markets: [{ market: MARKET_A, position, costBasis: '-70', realizedPnl: '3', fees: '1', fills: 2, throughMs: T0, recent: [{ key: `${TX(9)}:5:10:0`, timeMs: T0 + 1 }] }],
      balances: [{ token: MARKET_B, total: '1000' }],
    });
    journal.append(ledger('-10'));
    const newest = journal.append(ledger('-12'));
    journal.append({ kind: 'resolved', requestId: b, how: 'receipt', status: 'REVERTED' });
    journal.append({ kind: 'resolved', requestId: c, how: 'never-sent', status: 'NOT_SENT' });
    journal.compact();
    const kinds = lines(journal).map((line) => (JSON.parse(line) as JournalRecord).kind);
    expect(kinds).toEqual(['ledger', 'nonce-floor']);
    const again = reopen(journal);
    expect(again.restored.ledger).toEqual(newest);
    // A ledger that breaks its schema (a non-canonical amount, a bad fill key) is refused, nothing written.
    expect(hasCode(thrown(() => again.append({ ...ledger('-0') })), 'JOURNAL_RECORD_INVALID')).toBe(true);
    expect(hasCode(thrown(() => again.append({ ...ledger('1'), markets: [{ ...ledger('1').markets[0]!, recent: [{ key: 'nope', timeMs: 1 }] }] })), 'JOURNAL_RECORD_INVALID')).toBe(true);
    expect(lines(again)).toHaveLength(2);
  });

  it('never holds a key or a JWT: signed bodies only, credentials refused', async () => {
    const key = `0x${'5e'.repeat(32)}` as const;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDEyMyJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const account = privateKeyToAccount(key);
    const wallet = account.address.toLowerCase() as Address;
    const intent: BatchIntent = {
      header: {
        accountId: 7n,
        market: MARKET_B,
        authNonce: 0n,
        nonce: BigInt(T0),
        deadline: BigInt(T0 / 1000 + 300),
        clientOrderId: TX(3),
        builder: `0x${'00'.repeat(20)}`,
        builderFeePps: 0n,
      },
      orders: [{ side: 'SELL', quantity: 5n, price: 123n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n }],
      cancelSlotIdxs: [],
      expectedOrderIds: [],
    };
    const signature = await signBatchIntent(account, { domain: tradingWalletDomain({ chainId: 10143, wallet }), intent });
    const requestId = nextId();
    const body = encodeRelayRestRequest({ requestId, method: RelayMethod.executeBatch, wallet, payload: { ...intent, signature }, authorization7702: null });

    const journal = openJournal({ clock }, { dir: tmp.dir, network: 'testnet', wallet });
    open.push(journal);
    journal.append({ kind: 'signed', requestId, nonce: String(T0), method: RelayMethod.executeBatch, intent: summarizeIntent(slotCancel(MARKET_B)), body });
    journal.append({ kind: 'sent', requestId, transport: 'rest' });
    journal.append({ kind: 'response', requestId, status: 'REJECTED', code: 'AUTHENTICATION_FAILED', retryable: false });
    journal.append({ kind: 'resolved', requestId, how: 'rejected', status: 'REJECTED', reason: 'AUTHENTICATION_FAILED: Bearer token expired' });
    const withJwt = { kind: 'signed', requestId: nextId(), nonce: String(T0 + 1), method: RelayMethod.executeBatch, intent: null } as const;
    expect(hasCode(thrown(() => journal.append({ ...withJwt, body: `{"authorization":"Bearer ${jwt}"}` })), 'JOURNAL_RECORD_INVALID')).toBe(true);
    expect(hasCode(thrown(() => journal.append({ ...withJwt, body: BODY, token: jwt } as never)), 'JOURNAL_RECORD_INVALID')).toBe(true);
    const pending = nextId();
    journal.append({ kind: 'signed', requestId: pending, nonce: String(T0 + 2), method: RelayMethod.executeBatch, intent: null, body });
    const written = readFileSync(journal.path, 'utf8');
    expect(written).toContain(signature.slice(2));
    journal.compact();
    const compacted = readFileSync(journal.path, 'utf8');
    expect(compacted).toContain(pending);

    for (const text of [written, compacted]) {
      for (const secret of [key.slice(2), jwt, jwt.split('.')[1]!, 'eyJ']) expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});
