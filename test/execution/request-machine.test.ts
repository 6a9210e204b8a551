/**
 * The request state machine (src/execution/engine/request-machine.ts), pair by pair: every phase
 * against every event, each pair declared a move (to which phases), ignored or impossible below,
 * and checked against the code with several variants of the event. The same run draws the
 * diagram and the table of docs/execution.md ("A request's states"), which must match the code.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BaseError } from '../../src/core/base-error.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import {
  gates,
  MAX_RESENDS,
  REQUEST_PHASES,
  restoredRequest,
  signedRequest,
  transition,
  type RequestEffect,
  type RequestEnv,
  type RequestEvent,
  type RequestEventType,
  type RequestFacts,
  type RequestPhase,
  type RequestState,
} from '../../src/execution/engine/request-machine.ts';
import type { SubmitAnswer } from '../../src/execution/relay-transport.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const HASH = `0x${'ab'.repeat(32)}` as Hex;
const OTHER_HASH = `0x${'cd'.repeat(32)}` as Hex;
const NOW = 1_000_000;
const facts: RequestFacts = { requestId: 'r1', nonce: 10n, deadlineMs: NOW + 60_000, hasBody: true, ordered: true };
const env: RequestEnv = { now: NOW, running: true, lastHandedNonce: 10n, connectionId: 1, holdsPlace: true, resendDelayMs: 250 };

const carried = { txHash: undefined, via: undefined, resends: 0, trackedOn: undefined, gating: undefined } as const;
/** Each phase as the engine can hold it (several shapes where the shape changes what an event does). */
const STATES: Record<RequestPhase, readonly RequestState[]> = {
  signed: [signedRequest()],
  sending: [
    { ...carried, phase: 'sending', lostConnection: false },
    { ...carried, phase: 'sending', lostConnection: true },
  ],
  broadcast: [
    { ...carried, txHash: HASH, via: 'ws', trackedOn: 1, phase: 'broadcast', broadcastAt: NOW - 100 },
    { ...carried, txHash: HASH, via: 'rest', phase: 'broadcast', broadcastAt: NOW - 100 },
  ],
  reconciling: [
    { ...carried, via: 'ws', trackedOn: 1, phase: 'reconciling', since: NOW - 100, quiet: false },
    { ...restoredRequest({ txHash: HASH, via: 'ws', now: NOW - 5_000 }) },
    { ...carried, via: 'rest', gating: 'reconnect', phase: 'reconciling', since: NOW - 5_000, quiet: true },
  ],
  'waiting-resend': [{ ...carried, resends: 1, phase: 'waiting-resend', at: NOW }],
  done: [{ ...carried, txHash: HASH, phase: 'done', status: 'CONFIRMED', how: 'outcome' }],
};

const answer = (fields: Record<string, unknown>) => ({ type: 'answer', answer: { requestId: 'r1', via: 'ws', connectionId: 1, ...fields } as SubmitAnswer }) as const;
const rejected = (code: string, retryable: boolean) => ({ status: 'REJECTED', code, message: code, retryable, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null });
const broadcast = { status: 'BROADCAST', txHash: HASH, sponsorAddress: `0x${'11'.repeat(20)}`, sponsorNonce: 1n, transactionType: 'DYNAMIC_FEE' };
const outcome = (status: string, reason: string | null = null, via: 'ws' | 'receipt' = 'ws') =>
  ({ type: 'outcome', outcome: { requestId: 'r1', txHash: HASH, status, blockNumber: 7n, reason, via } }) as RequestEvent;

/** Every event type, in its variants, each with the name the diagram gives it. */
const EVENTS: Record<RequestEventType, readonly (readonly [string, RequestEvent])[]> = {
  send: [['send', { type: 'send' }]],
  answer: [
    ['BROADCAST', answer(broadcast)],
    ['BROADCAST on a replaced connection', answer({ ...broadcast, connectionId: 0 })],
    ['REJECTED', answer(rejected('INVALID_SIGNATURE', false))],
    ['REJECTED retryable', answer(rejected('RATE_LIMITED', true))],
    ['REJECTED stale slot', answer(rejected('EXPECTED_ORDER_ID_MISMATCH', false))],
    ['UNKNOWN', answer({ ...rejected('BROADCAST_RESULT_UNKNOWN', false), status: 'UNKNOWN', candidateTxHash: OTHER_HASH })],
    ['TIMEOUT', answer({ status: 'TIMEOUT', timeoutMs: 10_000 })],
    ['DISCONNECTED', answer({ status: 'DISCONNECTED', code: 1006, reason: 'gone' })],
    ['NOT_SENT', answer({ status: 'NOT_SENT', code: 'NO_CONNECTION', reason: 'down' })],
  ],
  'send-threw': [['send threw', { type: 'send-threw', error: new Error('misuse') }]],
  'late-response': [
    ['late BROADCAST', { type: 'late-response', response: { requestId: 'r1', via: 'ws', ...broadcast } as never }],
    ['late REJECTED', { type: 'late-response', response: { requestId: 'r1', via: 'ws', ...rejected('INVALID_SIGNATURE', false) } as never }],
    ['late UNKNOWN', { type: 'late-response', response: { requestId: 'r1', via: 'ws', ...rejected('X', false), status: 'UNKNOWN' } as never }],
  ],
  outcome: [
    ['CONFIRMED', outcome('CONFIRMED')],
    ['REVERTED', outcome('REVERTED', 'INSUFFICIENT_BALANCE')],
    ['REVERTED stale slot', outcome('REVERTED', 'EXPECTED_ORDER_ID_MISMATCH: slot 3')],
    ['DROPPED', outcome('DROPPED', 'replaced')],
    ['UNRESOLVED', outcome('UNRESOLVED', null, 'receipt')],
  ],
  verdict: [
    ['verdict executed', { type: 'verdict', verdict: { kind: 'executed', status: 'CONFIRMED', txHash: HASH, how: 'receipt' } }],
    ['verdict not executed', { type: 'verdict', verdict: { kind: 'not-executed', how: 'order-events', code: 'INTENT_DROPPED_NONCE_FENCED', reason: 'fenced', details: { fencedBy: '11' } } }],
  ],
  quiet: [['quiet', { type: 'quiet' }]],
  'connection-closed': [['connection closed', { type: 'connection-closed' }]],
  'connection-opened': [['connection opened', { type: 'connection-opened' }]],
  'resend-refused': [['resend refused', { type: 'resend-refused', error: new BaseError('RISK_KILL_SWITCH', 'tripped') }]],
  'engine-stopped': [['engine stopped', { type: 'engine-stopped' }]],
  'journal-outcome': [['journal outcome', { type: 'journal-outcome', status: 'CONFIRMED', txHash: HASH, reason: null }]],
  'journal-rejection': [['journal rejection', { type: 'journal-rejection', code: 'RATE_LIMITED' }]],
};

type Kind = 'impossible' | 'ignored' | readonly RequestPhase[];
const X = 'impossible' as const;
const I = 'ignored' as const;
/**
 * The declared machine: for each phase and event, where the request may go. A phase listed is
 * reached by at least one variant of the event from at least one shape of the phase, and every
 * outcome of the code is listed.
 */
const TABLE: Record<RequestPhase, Record<RequestEventType, Kind>> = {
  signed: {
    send: ['sending'], answer: X, 'send-threw': X, 'late-response': X, outcome: X, verdict: X, quiet: X,
    'connection-closed': X, 'connection-opened': I, 'resend-refused': X, 'engine-stopped': X, 'journal-outcome': X, 'journal-rejection': X,
  },
  sending: {
    send: X, answer: ['broadcast', 'reconciling', 'waiting-resend', 'done'], 'send-threw': ['reconciling'], 'late-response': X,
    outcome: ['reconciling', 'done'], verdict: X, quiet: X, 'connection-closed': ['sending'], 'connection-opened': I, 'resend-refused': X,
    'engine-stopped': ['sending'], 'journal-outcome': X, 'journal-rejection': X,
  },
  broadcast: {
    send: X, answer: X, 'send-threw': X, 'late-response': X, outcome: ['reconciling', 'done'], verdict: ['done'], quiet: X,
    'connection-closed': ['broadcast', 'reconciling'], 'connection-opened': ['broadcast', 'reconciling'], 'resend-refused': X,
    'engine-stopped': ['broadcast'], 'journal-outcome': X, 'journal-rejection': X,
  },
  reconciling: {
    send: X, answer: ['reconciling', 'waiting-resend', 'done'], 'send-threw': ['reconciling'], 'late-response': ['reconciling', 'done'],
    outcome: ['reconciling', 'done'], verdict: ['done'], quiet: ['reconciling'], 'connection-closed': ['reconciling'],
    'connection-opened': ['reconciling'], 'resend-refused': X, 'engine-stopped': ['reconciling'], 'journal-outcome': ['done'], 'journal-rejection': ['done'],
  },
  'waiting-resend': {
    send: ['sending'], answer: X, 'send-threw': X, 'late-response': X, outcome: ['reconciling', 'done'], verdict: X, quiet: X,
    'connection-closed': X, 'connection-opened': I, 'resend-refused': ['done'], 'engine-stopped': ['done'], 'journal-outcome': X, 'journal-rejection': X,
  },
  done: {
    send: I, answer: I, 'send-threw': I, 'late-response': I, outcome: I, verdict: I, quiet: I, 'connection-closed': I,
    'connection-opened': I, 'resend-refused': I, 'engine-stopped': I, 'journal-outcome': I, 'journal-rejection': I,
  },
};

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

const types = (effects: readonly RequestEffect[]) => effects.map((effect) => effect.type);
const only = <T extends RequestEffect['type']>(effects: readonly RequestEffect[], type: T) => effects.filter((effect): effect is Extract<RequestEffect, { type: T }> => effect.type === type);

describe('every (phase, event) pair', () => {
  for (const phase of REQUEST_PHASES) {
    for (const [type, variants] of Object.entries(EVENTS) as [RequestEventType, (typeof EVENTS)[RequestEventType]][]) {
      const declared = TABLE[phase][type];
      it(`${phase} × ${type}: ${typeof declared === 'string' ? declared : `-> ${declared.join(' | ')}`}`, () => {
        const reached = new Set<RequestPhase>();
        for (const state of STATES[phase]) {
          for (const [, event] of variants) {
            const input = deepFreeze(state);
            const { state: next, effects } = transition(input, deepFreeze(event), facts, env);
            // Pure: the same inputs give the same outputs, and nothing given is changed (frozen).
            expect(transition(input, event, facts, env)).toEqual({ state: next, effects });
            if (declared === 'impossible') {
              expect(next).toBe(input);
              expect(effects).toEqual([{ type: 'impossible', phase, event: type }]);
            } else if (declared === 'ignored') {
              expect(next).toBe(input);
              expect(effects).toEqual([]);
            } else {
              expect(types(effects)).not.toContain('impossible');
              expect(declared).toContain(next.phase);
              reached.add(next.phase);
            }
          }
        }
        if (typeof declared !== 'string') expect([...reached].sort()).toEqual([...declared].sort());
      });
    }
  }
});

describe('what the moves do', () => {
  const from = (phase: RequestPhase, index = 0) => STATES[phase][index]!;
  const run = (state: RequestState, event: RequestEvent, overrides: Partial<RequestEnv> = {}, factOverrides: Partial<RequestFacts> = {}) =>
    transition(state, event, { ...facts, ...factOverrides }, { ...env, ...overrides });

  it('send hands the body over and takes a place; only from signed or waiting to be resent', () => {
    const { state, effects } = run(from('signed'), { type: 'send' });
    expect(state).toMatchObject({ phase: 'sending', lostConnection: false });
    expect(types(effects)).toEqual(['submit']);
    expect(run(from('waiting-resend'), { type: 'send' }).state).toMatchObject({ phase: 'sending', resends: 1 });
  });

  it('BROADCAST journals sent and response, learns the hash and waits for the outcome on its connection', () => {
    const { state, effects } = run(from('sending'), EVENTS.answer[0]![1]);
    expect(state).toEqual({ ...carried, phase: 'broadcast', broadcastAt: NOW, txHash: HASH, via: 'ws', trackedOn: 1 });
    expect(types(effects)).toEqual(['journal', 'journal', 'learn-hash']);
    expect(only(effects, 'journal').map((effect) => effect.record.kind)).toEqual(['sent', 'response']);
  });

  it('BROADCAST after its connection closed, or on a replaced one: the place is freed and placements wait (reconnect)', () => {
    for (const [state, event] of [
      [from('sending', 1), EVENTS.answer[0]![1]],
      [from('sending'), EVENTS.answer[1]![1]],
    ] as const) {
      const next = run(state, event);
      expect(next.state).toMatchObject({ phase: 'reconciling', gating: 'reconnect', since: NOW, quiet: false });
      expect(types(next.effects)).toEqual(['journal', 'journal', 'learn-hash', 'release-place', 'reconcile', 'read-now']);
      expect(gates(next.state, 'reconnect')).toBe(true);
    }
  });

  it('a rejection resolves the request; a retryable one lets the intent be signed again after its wait', () => {
    const final = run(from('sending'), EVENTS.answer[2]![1]);
    expect(final.state).toMatchObject({ phase: 'done', status: 'REJECTED', how: 'rejected' });
    expect(types(final.effects)).toEqual(['journal', 'journal', 'count', 'failure', 'release-place', 'resolved', 'portfolio', 'fate']);
    expect(only(final.effects, 'fate')[0]).toEqual({ type: 'fate', fate: { status: 'REJECTED', requestId: 'r1', code: 'INVALID_SIGNATURE', message: 'INVALID_SIGNATURE' } });
    const paced = run(from('sending'), EVENTS.answer[3]![1]);
    // A rate limit is the venue pacing the bot: no failure for the kill switch, a retry after 1 s.
    expect(types(paced.effects)).not.toContain('failure');
    expect(only(paced.effects, 'fate')[0]!.retryAfterMs).toBe(1_000);
    const stale = run(from('sending'), EVENTS.answer[4]![1]);
    expect(types(stale.effects)).toContain('stale-view');
    expect(types(stale.effects)).not.toContain('failure');
  });

  it('NOT_SENT: the same body again while nonces stay in order and the deadline leaves time; else resolved never-sent', () => {
    const notSent = EVENTS.answer[8]![1];
    const again = run(from('sending'), notSent);
    expect(again.state).toMatchObject({ phase: 'waiting-resend', resends: 1, at: NOW + 250 });
    expect(types(again.effects)).toEqual(['release-place', 'resend-at', 'log']);
    // The second resend waits twice as long.
    expect(run({ ...from('sending'), resends: 1 }, notSent).state).toMatchObject({ at: NOW + 500 });
    for (const [why, overrides, factOverrides] of [
      ['a later nonce went', { lastHandedNonce: 11n }, {}],
      ['too little deadline left', {}, { deadlineMs: NOW + 5_000 }],
      ['no body', {}, { hasBody: false }],
    ] as const) {
      const given = run(from('sending'), notSent, overrides, factOverrides);
      expect(given.state, why).toMatchObject({ phase: 'done', status: 'NOT_SENT', how: 'never-sent' });
      expect(only(given.effects, 'fate')[0]!.retryAfterMs, why).toBe(250);
    }
    expect(run({ ...from('sending'), resends: MAX_RESENDS }, notSent).state.phase).toBe('done');
    // Stopped: never-sent, and the intent is not signed again.
    const stopped = run(from('sending'), notSent, { running: false });
    expect(stopped.state.phase).toBe('done');
    expect(only(stopped.effects, 'fate')[0]!.retryAfterMs).toBeUndefined();
  });

  it('TIMEOUT keeps its place (the relay may still track it) and reconciles; DISCONNECTED frees it and holds placements back', () => {
    const timeout = run(from('sending'), EVENTS.answer[6]![1]);
    expect(timeout.state).toMatchObject({ phase: 'reconciling', trackedOn: 1, gating: undefined });
    expect(types(timeout.effects)).not.toContain('release-place');
    const gone = run(from('sending'), EVENTS.answer[7]![1]);
    expect(gone.state).toMatchObject({ phase: 'reconciling', gating: 'reconnect' });
    expect(types(gone.effects)).toContain('release-place');
  });

  it('CONFIRMED of a market request is queued for the portfolio before the request is forgotten, and fences lower nonces', () => {
    const { state, effects } = run(from('broadcast'), EVENTS.outcome[0]![1]);
    expect(state).toMatchObject({ phase: 'done', status: 'CONFIRMED', how: 'outcome' });
    expect(types(effects)).toEqual(['learn-hash', 'journal', 'queue-confirmation', 'release-place', 'resolved', 'count', 'confirmed', 'fate', 'kick']);
    // A request of no market (a trigger cancel) reaches the portfolio at once.
    expect(types(run(from('broadcast'), EVENTS.outcome[0]![1], {}, { ordered: false }).effects)).toContain('portfolio');
  });

  it('a stale-slot revert is counted apart and is no failure; another revert counts toward the kill switch', () => {
    const stale = run(from('broadcast'), EVENTS.outcome[2]![1]);
    expect(only(stale.effects, 'count').map((effect) => effect.counter)).toEqual(['reverted', 'staleSlotReverts']);
    expect(types(stale.effects)).not.toContain('failure');
    expect(only(stale.effects, 'fate')[0]!.fate).toMatchObject({ status: 'REVERTED', code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(types(run(from('broadcast'), EVENTS.outcome[1]![1]).effects)).toContain('failure');
  });

  it('settled without its outcome message while its connection may still send it: the place lingers', () => {
    // Tracked on connection 1, settled by a receipt verdict while connection 1 is open.
    const lingering = run(from('broadcast'), EVENTS.verdict[0]![1]);
    expect(types(lingering.effects)).toContain('linger');
    expect(types(lingering.effects)).not.toContain('release-place');
    // The outcome message itself, another connection, or no place held: released.
    expect(types(run(from('broadcast'), EVENTS.outcome[0]![1]).effects)).toContain('release-place');
    expect(types(run(from('broadcast'), EVENTS.verdict[0]![1], { connectionId: 2 }).effects)).toContain('release-place');
    expect(types(run(from('broadcast'), EVENTS.verdict[0]![1], { holdsPlace: false }).effects)).toContain('release-place');
  });

  it('a verdict that it was not executed is DROPPED with the rule\'s code and figures', () => {
    const { state, effects } = run(from('reconciling'), EVENTS.verdict[1]![1]);
    expect(state).toMatchObject({ phase: 'done', status: 'DROPPED', how: 'order-events' });
    expect(only(effects, 'fate')[0]!.fate).toEqual({ status: 'DROPPED', requestId: 'r1', txHash: '', code: 'INTENT_DROPPED_NONCE_FENCED', reason: 'fenced', details: { fencedBy: '11' } });
    expect(only(effects, 'count').map((effect) => effect.counter)).toEqual(['reconciled', 'dropped']);
  });

  it('a restored request holds everything back until it settles or turns quiet', () => {
    const restored = restoredRequest({ txHash: undefined, via: undefined, now: NOW });
    expect(gates(restored, 'start')).toBe(true);
    expect(gates(run(restored, { type: 'quiet' }).state, 'start')).toBe(false);
  });

  it('connections: a close while sending marks the request (placements wait); a reopen reconciles what was awaited', () => {
    const closed = run(from('sending'), { type: 'connection-closed' });
    expect(closed.state).toMatchObject({ phase: 'sending', lostConnection: true });
    expect(gates(closed.state, 'reconnect')).toBe(true);
    // REST requests wait for their receipts, which no connection carries.
    expect(run(from('broadcast', 1), { type: 'connection-closed' }).state.phase).toBe('broadcast');
    const reopened = run(from('broadcast'), { type: 'connection-opened' });
    expect(reopened.state).toMatchObject({ phase: 'reconciling', trackedOn: undefined, gating: 'reconnect' });
  });

  it('engine stopped: a request waiting to be resent never left (NOT_SENT); the others stay unresolved for the next start', () => {
    const resend = run(from('waiting-resend'), { type: 'engine-stopped' }, { running: false });
    expect(resend.state).toMatchObject({ phase: 'done', status: 'NOT_SENT' });
    const inFlight = run(from('broadcast'), { type: 'engine-stopped' }, { running: false });
    expect(inFlight.state).toBe(from('broadcast'));
    expect(types(inFlight.effects)).toEqual(['fate']);
    expect(types(inFlight.effects)).not.toContain('resolved');
  });
});

describe('any sequence of events', () => {
  const allEvents = Object.values(EVENTS).flatMap((variants) => variants.map(([, event]) => event));
  const envs = fc.record({
    now: fc.integer({ min: NOW - 10_000, max: NOW + 120_000 }),
    running: fc.boolean(),
    lastHandedNonce: fc.bigInt({ min: 8n, max: 12n }),
    connectionId: fc.constantFrom(undefined, 0, 1, 2),
    holdsPlace: fc.boolean(),
    resendDelayMs: fc.constant(250),
  });

  it('resolves a request at most once, as its last record; nothing comes after done; a place is taken only by a send', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...allEvents), envs), { maxLength: 30 }), (steps) => {
        let state = signedRequest();
        let resolved = 0;
        for (const [event, stepEnv] of steps) {
          const before = state.phase;
          const { state: next, effects } = transition(state, event, facts, stepEnv);
          if (before === 'done') expect(effects).toEqual([]);
          const kinds = types(effects);
          if (kinds.includes('submit')) expect(event.type).toBe('send');
          const at = kinds.indexOf('resolved');
          if (at >= 0) {
            resolved += 1;
            expect(next.phase).toBe('done');
            expect(kinds.slice(at + 1)).not.toContain('journal');
            // Exactly one of release or linger settles its place, before the record.
            expect(kinds.slice(0, at).filter((kind) => kind === 'release-place' || kind === 'linger').length).toBeGreaterThanOrEqual(1);
            expect(kinds[at - 1] === 'release-place' || kinds[at - 1] === 'linger').toBe(true);
          }
          if (next.phase === 'done' && before !== 'done') expect(at).toBeGreaterThanOrEqual(0);
          state = next;
        }
        expect(resolved).toBeLessThanOrEqual(1);
      }),
      fuzzSettings({ numRuns: 400, seed: 17 }),
    );
  });
});

/** The moves the code makes over every pair, as a Mermaid diagram and a table. */
function drawMachine(): string {
  const edges = new Map<string, Set<string>>();
  const cells = new Map<string, Set<string>>();
  for (const phase of REQUEST_PHASES) {
    for (const [type, variants] of Object.entries(EVENTS) as [RequestEventType, (typeof EVENTS)[RequestEventType]][]) {
      const cell = new Set<string>();
      for (const state of STATES[phase]) {
        for (const [label, event] of variants) {
          const { state: next, effects } = transition(state, event, facts, env);
          if (effects.some((effect) => effect.type === 'impossible')) cell.add('✗');
          else if (effects.length === 0 && next === state) cell.add('·');
          else {
            cell.add(next.phase === phase ? '↺' : next.phase);
            if (next.phase !== phase) {
              const key = `${phase} --> ${next.phase}`;
              edges.set(key, (edges.get(key) ?? new Set()).add(label));
            }
          }
        }
      }
      cells.set(`${phase}|${type}`, cell);
    }
  }
  const eventTypes = Object.keys(EVENTS) as RequestEventType[];
  return [
    '```mermaid',
    'stateDiagram-v2',
    '  [*] --> signed: signed and journaled',
    '  [*] --> reconciling: restored from the journal',
    ...[...edges].map(([key, labels]) => `  ${key}: ${[...labels].join(', ')}`),
    '  done --> [*]',
    '```',
    '',
    `| phase | ${eventTypes.join(' | ')} |`,
    `|---|${eventTypes.map(() => '---|').join('')}`,
    ...REQUEST_PHASES.map((phase) => `| ${phase} | ${eventTypes.map((type) => [...cells.get(`${phase}|${type}`)!].join(' ')).join(' | ')} |`),
  ].join('\n');
}

describe('docs/execution.md', () => {
  it('draws the machine the code is', () => {
    const doc = readFileSync(new URL('../../docs/execution.md', import.meta.url), 'utf8');
    const begin = '<!-- request-machine: drawn by test/execution/request-machine.test.ts -->\n';
    const end = '\n<!-- /request-machine -->';
    const from = doc.indexOf(begin);
    const to = doc.indexOf(end, from);
    const drawn = drawMachine();
    expect(from >= 0 && to > from, `docs/execution.md lacks the block; it should hold:\n${begin}${drawn}${end}`).toBe(true);
    expect(doc.slice(from + begin.length, to), `docs/execution.md is out of date; the block should hold:\n${drawn}`).toBe(drawn);
  });
});
