/**
 * A signed request's life, as a pure state machine: `transition(state, event, facts, env)` gives
 * the next state and the effects the engine carries out, in order (journal records, the in-flight
 * cap, the portfolio, reconciliation, the intent's fate). No I/O, no clock, nothing mutated: the
 * engine's request book (request-book.ts) owns the requests and runs the effects.
 *
 * Every (phase, event) pair is one of three kinds, tested one by one in
 * test/execution/request-machine.test.ts, which also draws the diagram of docs/execution.md from
 * this code:
 * - a move (possibly to the same phase) with its effects;
 * - ignored: news that can legitimately come too late (anything after `done`, a reconnect while
 *   the request is still being sent);
 * - impossible: an event that no path can deliver in that phase (a second answer to one send).
 *   The state stays, and one `impossible` effect lets the engine log the bug.
 *
 * Why over 400 lines: the machine is one table, every phase's answer to every event, read (and
 * tested) as a whole; split, a phase's ways out would lie in several files.
 */
import type { BaseError } from '../../core/base-error.ts';
import { backoffMs } from '../../core/backoff.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import type { RelayErrorCodeName } from '../../protocol/constants.ts';
import type { Hex } from '../../protocol/encoding.ts';
import { parseRevertReason } from '../../protocol/revert-reason.ts';
import type { IntentFate } from '../../strategy/strategy-context.ts';
import type { FinalStatus, JournalRecordInput, ResolvedHow } from '../journal-record.ts';
import type { SettlingVerdict } from './reconciliation.ts';
import type { LateResponse, SubmitAnswer, TransportRoute } from '../relay-transport.ts';
import type { TransportOutcome } from '../relay-receipts.ts';

/** What an unsettled request holds back: everything new (`start`, after a restart) or placements (`reconnect`). */
export type Gating = 'start' | 'reconnect';

/** What a request carries whatever its phase. */
interface Carried {
  /** The first transaction hash learnt for it. */
  readonly txHash: Hex | undefined;
  /** The route of its last answered send. */
  readonly via: TransportRoute | undefined;
  /** Times the same body went again after NOT_SENT. */
  readonly resends: number;
  /** The WebSocket connection that owes it an outcome message (its BROADCAST or TIMEOUT answer came on it). */
  readonly trackedOn: number | undefined;
  /** What it holds back until it settles or its reconciliation turns quiet. */
  readonly gating: Gating | undefined;
}

export type RequestState =
  /** Signed and journaled, not yet handed to the transport. */
  | (Carried & { readonly phase: 'signed' })
  /** Handed to the transport, waiting for its answer; `lostConnection`: its WebSocket closed meanwhile. */
  | (Carried & { readonly phase: 'sending'; readonly lostConnection: boolean })
  /** The relay broadcast it: waiting for its outcome message (WebSocket) or receipt (REST). */
  | (Carried & { readonly phase: 'broadcast'; readonly broadcastAt: number })
  /** Its fate is unknown: the user-data reads and receipts decide (engine/reconciliation.ts). */
  | (Carried & { readonly phase: 'reconciling'; readonly since: number; readonly quiet: boolean })
  /** Nothing left this process (NOT_SENT): the same body goes again at `at`. */
  | (Carried & { readonly phase: 'waiting-resend'; readonly at: number })
  | (Carried & { readonly phase: 'done'; readonly status: FinalStatus; readonly how: ResolvedHow });

export type RequestPhase = RequestState['phase'];

/** The phases, in the order of the diagram. */
export const REQUEST_PHASES: readonly RequestPhase[] = ['signed', 'sending', 'broadcast', 'reconciling', 'waiting-resend', 'done'];

export type RequestEvent =
  /** Hand it to the transport: just signed, or its resend is due. */
  | { readonly type: 'send' }
  /** The transport's answer to a send. */
  | { readonly type: 'answer'; readonly answer: SubmitAnswer }
  /** The transport threw on a send (a misuse): whether anything left is unknown. */
  | { readonly type: 'send-threw'; readonly error: unknown }
  /** An answer after its TIMEOUT answer. */
  | { readonly type: 'late-response'; readonly response: LateResponse }
  /** An outcome message or a receipt (UNRESOLVED: none by the deadline). */
  | { readonly type: 'outcome'; readonly outcome: TransportOutcome }
  /** A reconciliation pass decided its fate. */
  | { readonly type: 'verdict'; readonly verdict: SettlingVerdict }
  /** A reconciliation pass long enough after it began found nothing: it stops holding anything back. */
  | { readonly type: 'quiet' }
  /** The WebSocket connection it awaited an outcome on closed. */
  | { readonly type: 'connection-closed' }
  /** A new WebSocket connection opened while it held a place or awaited an outcome on an older one. */
  | { readonly type: 'connection-opened' }
  /** Its resend may no longer go (kill switch, stopping): `error` says why. */
  | { readonly type: 'resend-refused'; readonly error: BaseError }
  /** The engine stopped with it unresolved (the journal keeps it for the next start). */
  | { readonly type: 'engine-stopped' }
  /** Restored from the journal, which holds its outcome. */
  | { readonly type: 'journal-outcome'; readonly status: 'CONFIRMED' | 'REVERTED' | 'DROPPED'; readonly txHash: string; readonly reason: string | null }
  /** Restored from the journal, which holds the relay's rejection. */
  | { readonly type: 'journal-rejection'; readonly code: string | undefined };

export type RequestEventType = RequestEvent['type'];

/** The engine's counters a request moves. */
export type RequestCounter = 'confirmed' | 'reverted' | 'staleSlotReverts' | 'dropped' | 'rejected' | 'reconciled';

export type RequestEffect =
  | { readonly type: 'journal'; readonly record: JournalRecordInput }
  /** Take a place under the in-flight cap and hand the signed body to the transport. */
  | { readonly type: 'submit' }
  /** Give back its place under the in-flight cap. */
  | { readonly type: 'release-place' }
  /** Keep its place while its connection may still deliver the outcome message the relay counts as pending. */
  | { readonly type: 'linger' }
  /** A transaction hash it owns: claimed in the evidence, and (`portfolio`) the placement's BROADCAST. */
  | { readonly type: 'learn-hash'; readonly txHash: Hex; readonly portfolio: boolean }
  /** The portfolio learns a status of its placement. */
  | { readonly type: 'portfolio'; readonly status: 'UNKNOWN' | 'CONFIRMED' | 'REVERTED' | 'DROPPED' | 'REJECTED'; readonly txHash?: Hex }
  /** A confirmation the portfolio takes in nonce order per market (queued before `resolved`, which flushes the queue). */
  | { readonly type: 'queue-confirmation'; readonly txHash: Hex | undefined }
  /** CONFIRMED: its nonce fences the lower ones, and the order events are read soon. */
  | { readonly type: 'confirmed'; readonly txHash: Hex | undefined }
  /** Joins the requests reconciliation reads for. */
  | { readonly type: 'reconcile' }
  /** Read the user data now. */
  | { readonly type: 'read-now' }
  /** Its slots were not what it expected: the view is stale. */
  | { readonly type: 'stale-view' }
  /** Counts toward the kill switch's error rate. */
  | { readonly type: 'failure' }
  | { readonly type: 'resend-at'; readonly at: number }
  | { readonly type: 'count'; readonly counter: RequestCounter }
  /** The `resolved` record; the request is forgotten. */
  | { readonly type: 'resolved'; readonly how: ResolvedHow; readonly status: FinalStatus; readonly txHash?: Hex; readonly reason?: string }
  /** The intent's fate from this attempt; `retryAfterMs`: the intent may be signed again (new nonce) after it. */
  | { readonly type: 'fate'; readonly fate: IntentFate; readonly retryAfterMs?: number }
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields?: Readonly<Record<string, unknown>> }
  /** Let the engine's pump look for work. */
  | { readonly type: 'kick' }
  | { readonly type: 'impossible'; readonly phase: RequestPhase; readonly event: RequestEventType };

/** What never changes for a request. */
export interface RequestFacts {
  readonly requestId: string;
  readonly nonce: bigint;
  readonly deadlineMs: number;
  /** Its signed body is known (one restored from the journal may have an unreadable body). */
  readonly hasBody: boolean;
  /** Its confirmation reaches the portfolio in nonce order per market (it trades a market). */
  readonly ordered: boolean;
}

/** What the engine knows at the event. */
export interface RequestEnv {
  readonly now: number;
  /** Running or stopping (not stopped): a resend or a retry may still go. */
  readonly running: boolean;
  /** The highest nonce handed to the transport. */
  readonly lastHandedNonce: bigint;
  /** The WebSocket connection open now. */
  readonly connectionId: number | undefined;
  /** The request holds a place under the in-flight cap. */
  readonly holdsPlace: boolean;
  readonly resendDelayMs: number;
}

export interface Transition {
  readonly state: RequestState;
  readonly effects: readonly RequestEffect[];
}

/** A NOT_SENT request is sent again (same body) at most this many times. */
export const MAX_RESENDS = 6;
/** A resend needs at least this much of its deadline left; otherwise the intent is signed anew. */
export const RESEND_MIN_DEADLINE_LEFT_MS = 5_000;
/** The relay code (of a rejection, or a revert's reason) of a slot that did not hold the expected order. */
const STALE_SLOT_CODE: RelayErrorCodeName = 'EXPECTED_ORDER_ID_MISMATCH';
/**
 * The revert code of an order the block's book refused (post-only would cross, FOK unfilled). Every
 * order passed the static rules before it was signed, so this is the market moving under an
 * in-flight request, not a fault of the bot.
 */
const MARKET_MOVED_CODE: RelayErrorCodeName = 'INVALID_ORDER';
/** A DROPPED outcome from the relay: the cause of every DROPPED that no reconciliation verdict decided. */
const DROPPED_BY_RELAY: DropCause = { code: 'INTENT_DROPPED_BY_RELAY' };

interface DropCause {
  readonly code: ErrorCode;
  readonly details?: Readonly<Record<string, string | number>>;
}

const NOTHING_CARRIED: Carried = { txHash: undefined, via: undefined, resends: 0, trackedOn: undefined, gating: undefined };

/** A request just signed and journaled. */
export function signedRequest(): RequestState {
  return { ...NOTHING_CARRIED, phase: 'signed' };
}

/** A request the journal left unresolved: reconciled, holding everything new back until it settles or turns quiet. */
export function restoredRequest(restored: { readonly txHash: Hex | undefined; readonly via: TransportRoute | undefined; readonly now: number }): RequestState {
  return { ...NOTHING_CARRIED, txHash: restored.txHash, via: restored.via, gating: 'start', phase: 'reconciling', since: restored.now, quiet: false };
}

/** True while the request holds back what its gating says. */
export function gates(state: RequestState, kind: Gating): boolean {
  if (state.phase === 'sending') return kind === 'reconnect' && state.lostConnection;
  return state.phase === 'reconciling' && state.gating === kind && !state.quiet;
}

export function transition(state: RequestState, event: RequestEvent, facts: RequestFacts, env: RequestEnv): Transition {
  const step = new Step(state, facts, env);
  if (state.phase === 'done') return step.result();
  switch (event.type) {
    case 'send':
      if (state.phase !== 'signed' && state.phase !== 'waiting-resend') return step.impossible(event);
      step.move({ phase: 'sending', lostConnection: false });
      step.effect({ type: 'submit' });
      step.holds = true;
      break;
    case 'answer':
      if (state.phase !== 'sending' && state.phase !== 'reconciling') return step.impossible(event);
      step.answer(event.answer);
      break;
    case 'send-threw':
      if (state.phase !== 'sending' && state.phase !== 'reconciling') return step.impossible(event);
      step.log('error', 'the relay transport failed a submission', { err: event.error });
      step.toReconciling(undefined);
      break;
    case 'late-response':
      if (state.phase !== 'reconciling') return step.impossible(event);
      step.lateResponse(event.response);
      break;
    case 'outcome':
      if (state.phase === 'signed') return step.impossible(event);
      step.outcome(event.outcome);
      break;
    case 'verdict':
      if (state.phase !== 'reconciling' && state.phase !== 'broadcast') return step.impossible(event);
      step.effect({ type: 'count', counter: 'reconciled' });
      if (event.verdict.kind === 'executed') step.executed(event.verdict.status, event.verdict.txHash, event.verdict.how, null, undefined, DROPPED_BY_RELAY);
      else step.executed('DROPPED', state.txHash ?? '', event.verdict.how, event.verdict.reason, undefined, { code: event.verdict.code, ...(event.verdict.details === undefined ? {} : { details: event.verdict.details }) });
      break;
    case 'quiet':
      if (state.phase !== 'reconciling') return step.impossible(event);
      step.move({ ...state, quiet: true });
      step.log('info', 'reconciliation found nothing yet: it waits for a later nonce or its deadline', { gating: state.gating });
      break;
    case 'connection-closed':
      if (state.phase === 'signed' || state.phase === 'waiting-resend') return step.impossible(event);
      step.releasePlace();
      if (state.phase === 'sending') step.move({ ...state, lostConnection: true });
      else if (state.via !== 'rest') step.toReconciling('reconnect');
      break;
    case 'connection-opened':
      // Still being sent or waiting to go again: its answer or its resend decides. REST requests wait
      // for their receipts, which no connection carries.
      if (state.phase === 'signed' || state.phase === 'sending' || state.phase === 'waiting-resend') break;
      if (state.phase === 'broadcast' && state.via === 'rest') break;
      step.carry({ trackedOn: undefined });
      step.toReconciling('reconnect');
      break;
    case 'resend-refused':
      if (state.phase !== 'waiting-resend') return step.impossible(event);
      step.finish('never-sent', 'NOT_SENT', undefined, event.error.message);
      step.effect({ type: 'portfolio', status: 'REJECTED' });
      step.fate({ status: 'REFUSED', code: event.error.code, message: event.error.message });
      break;
    case 'engine-stopped':
      if (state.phase === 'waiting-resend') {
        // Never left this process: settled as such.
        step.finish('never-sent', 'NOT_SENT', undefined, 'the engine stopped before sending it again');
        step.effect({ type: 'portfolio', status: 'REJECTED' });
        step.fate({ status: 'REJECTED', requestId: facts.requestId, code: 'NOT_SENT', message: 'not sent: the engine stopped' });
      } else if (state.phase === 'signed') {
        return step.impossible(event);
      } else {
        // The journal keeps it unresolved: the next start reconciles it.
        step.fate({ status: 'REJECTED', requestId: facts.requestId, code: 'ENGINE_STOPPED', message: 'the engine stopped before its fate was known; the journal keeps it for the next start to reconcile' });
      }
      break;
    case 'journal-outcome':
      if (state.phase !== 'reconciling') return step.impossible(event);
      step.executed(event.status, event.txHash, 'outcome', event.reason, undefined, DROPPED_BY_RELAY);
      break;
    case 'journal-rejection':
      if (state.phase !== 'reconciling') return step.impossible(event);
      step.finish('rejected', 'REJECTED', undefined, `${event.code ?? 'REJECTED'} (answered before a restart)`);
      step.effect({ type: 'portfolio', status: 'REJECTED' });
      break;
  }
  return step.result();
}

/** One transition being built: the working state and the effects so far. */
class Step {
  #state: RequestState;
  readonly #effects: RequestEffect[] = [];
  readonly #facts: RequestFacts;
  readonly #env: RequestEnv;
  /** Whether it holds a place under the cap, as the effects so far leave it. */
  holds: boolean;

  constructor(state: RequestState, facts: RequestFacts, env: RequestEnv) {
    this.#state = state;
    this.#facts = facts;
    this.#env = env;
    this.holds = env.holdsPlace;
  }

  result(): Transition {
    return { state: this.#state, effects: this.#effects };
  }

  impossible(event: RequestEvent): Transition {
    return { state: this.#state, effects: [{ type: 'impossible', phase: this.#state.phase, event: event.type }] };
  }

  effect(effect: RequestEffect): void {
    this.#effects.push(effect);
  }

  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.#effects.push({ type: 'log', level, message, ...(fields === undefined ? {} : { fields }) });
  }

  /** To another phase, keeping what is carried. */
  move(next: DistributiveOmit<RequestState, keyof Carried>): void {
    const { txHash, via, resends, trackedOn, gating } = this.#state;
    this.#state = { txHash, via, resends, trackedOn, gating, ...next } as RequestState;
  }

  carry(changes: Partial<Carried>): void {
    this.#state = { ...this.#state, ...changes };
  }

  releasePlace(): void {
    this.#effects.push({ type: 'release-place' });
    this.holds = false;
  }

  fate(fate: IntentFate, retryAfterMs?: number): void {
    this.#effects.push({ type: 'fate', fate, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }

  learnHash(txHash: string, portfolio: boolean): Hex {
    const hash = txHash.toLowerCase() as Hex;
    if (this.#state.txHash === undefined) this.carry({ txHash: hash });
    this.#effects.push({ type: 'learn-hash', txHash: hash, portfolio });
    return hash;
  }

  toReconciling(gating: 'reconnect' | undefined): void {
    const state = this.#state;
    if (state.phase !== 'reconciling') {
      this.move({ phase: 'reconciling', since: this.#env.now, quiet: false });
      this.#effects.push({ type: 'reconcile' });
    }
    if (gating !== undefined && this.#state.gating === undefined) this.carry({ gating });
    this.#effects.push({ type: 'read-now' });
  }

  /** The `resolved` record; its place is kept while its connection may still bring the outcome message. */
  finish(how: ResolvedHow, status: FinalStatus, txHash: Hex | undefined, reason: string | null | undefined): void {
    const { trackedOn } = this.#state;
    const linger = how !== 'outcome' && trackedOn !== undefined && trackedOn === this.#env.connectionId && this.holds;
    this.#effects.push({ type: linger ? 'linger' : 'release-place' });
    this.holds = linger;
    this.move({ phase: 'done', status, how });
    this.#effects.push({ type: 'resolved', how, status, ...(txHash === undefined ? {} : { txHash }), ...(reason == null ? {} : { reason: short(reason, 1024) }) });
  }

  answer(answer: SubmitAnswer): void {
    if (answer.status === 'NOT_SENT') {
      this.notSent(answer.code, answer.reason);
      return;
    }
    const { requestId } = this.#facts;
    this.effect({ type: 'journal', record: { kind: 'sent', requestId, transport: answer.via } });
    this.carry({ via: answer.via });
    switch (answer.status) {
      case 'BROADCAST': {
        this.effect({ type: 'journal', record: { kind: 'response', requestId, status: 'BROADCAST', txHash: answer.txHash.toLowerCase() as Hex } });
        this.learnHash(answer.txHash, true);
        const state = this.#state;
        if (state.phase !== 'sending') break;
        const stale = answer.via === 'ws' && answer.connectionId !== undefined && this.#env.connectionId !== undefined && answer.connectionId !== this.#env.connectionId;
        if (state.lostConnection || stale) {
          // Answered, but its connection is gone: its outcome will never come on it.
          this.releasePlace();
          this.toReconciling('reconnect');
        } else {
          if (answer.via === 'ws') this.carry({ trackedOn: answer.connectionId });
          this.move({ phase: 'broadcast', broadcastAt: this.#env.now });
        }
        break;
      }
      case 'REJECTED':
        this.effect({ type: 'journal', record: rejectionRecord(requestId, answer) });
        this.rejected(answer);
        break;
      case 'UNKNOWN': {
        this.effect({ type: 'journal', record: unknownRecord(requestId, answer) });
        if (answer.candidateTxHash !== null) this.learnHash(answer.candidateTxHash, true);
        this.effect({ type: 'portfolio', status: 'UNKNOWN' });
        const state = this.#state;
        this.toReconciling(state.phase === 'sending' && state.lostConnection ? 'reconnect' : undefined);
        break;
      }
      case 'TIMEOUT':
        // The relay may still answer and track it on this connection: its place stays taken.
        this.carry({ trackedOn: answer.connectionId });
        this.log('warn', 'no answer in time: reconciling', { timeoutMs: answer.timeoutMs });
        this.toReconciling(undefined);
        break;
      case 'DISCONNECTED':
        this.releasePlace();
        this.toReconciling('reconnect');
        break;
    }
  }

  lateResponse(response: LateResponse): void {
    const { requestId } = this.#facts;
    this.log('info', 'late relay answer', { status: response.status });
    if (response.status === 'BROADCAST') {
      this.effect({ type: 'journal', record: { kind: 'response', requestId, status: 'BROADCAST', txHash: response.txHash.toLowerCase() as Hex } });
      this.learnHash(response.txHash, true);
    } else if (response.status === 'REJECTED') {
      this.effect({ type: 'journal', record: rejectionRecord(requestId, { ...response, retryAfterMs: null }) });
      this.rejected(response);
    } else {
      this.effect({ type: 'journal', record: unknownRecord(requestId, response) });
      if (response.candidateTxHash !== null) this.learnHash(response.candidateTxHash, true);
    }
    this.effect({ type: 'read-now' });
  }

  rejected(answer: RelayErrorAnswer): void {
    const { code, message, retryable } = answer;
    this.effect({ type: 'count', counter: 'rejected' });
    // A relay that checks expected ids before sending says what a revert would: the view is stale.
    if (code === STALE_SLOT_CODE) this.effect({ type: 'stale-view' });
    // A rate limit with its wait is the venue pacing the bot, not a failure: the intent goes again after it.
    else if (!(code === 'RATE_LIMITED' && retryable)) this.effect({ type: 'failure' });
    this.finish('rejected', 'REJECTED', undefined, `${code}: ${message}`);
    this.effect({ type: 'portfolio', status: 'REJECTED' });
    // NONCE_NOT_INCREASING is final for that body, but a rejected request never executed: signing
    // the intent again with a new nonce is safe (requests can overtake each other over REST).
    const engineRetry = code === 'NONCE_NOT_INCREASING';
    const retryAfterMs = retryable || engineRetry ? (answer.retryAfterMs ?? (engineRetry ? 0 : 1_000)) : undefined;
    this.fate({ status: 'REJECTED', requestId: this.#facts.requestId, code, message }, retryAfterMs);
  }

  notSent(code: string, reason: string): void {
    this.releasePlace();
    const { now, running, lastHandedNonce, resendDelayMs } = this.#env;
    const { nonce, deadlineMs, hasBody, requestId } = this.#facts;
    const { resends } = this.#state;
    // Nothing left this process. The same body may go again while no later nonce was handed to the
    // transport (nonces must arrive in order) and its deadline leaves time.
    if (running && hasBody && nonce >= lastHandedNonce && resends < MAX_RESENDS && deadlineMs - now > RESEND_MIN_DEADLINE_LEFT_MS) {
      const at = now + backoffMs(resends + 1, { initialMs: resendDelayMs, factor: 2, maxMs: resendDelayMs * 8 });
      this.carry({ resends: resends + 1 });
      this.move({ phase: 'waiting-resend', at });
      this.effect({ type: 'resend-at', at });
      this.log('info', 'not sent: sending the same request again', { code, reason, resendInMs: at - now });
      return;
    }
    this.finish('never-sent', 'NOT_SENT', undefined, `${code}: ${reason}`);
    this.effect({ type: 'portfolio', status: 'REJECTED' });
    this.fate({ status: 'REJECTED', requestId, code: 'NOT_SENT', message: `not sent (${code}): ${reason}` }, running ? resendDelayMs : undefined);
  }

  outcome(outcome: TransportOutcome): void {
    if (outcome.status === 'UNRESOLVED') {
      this.learnHash(outcome.txHash, true);
      this.releasePlace();
      this.toReconciling(undefined);
      return;
    }
    const record: JournalRecordInput = {
      kind: 'outcome',
      requestId: this.#facts.requestId,
      txHash: outcome.txHash.toLowerCase() as Hex,
      status: outcome.status,
      ...(outcome.blockNumber === null ? {} : { blockNumber: outcome.blockNumber.toString() }),
      ...(outcome.reason === null ? {} : { reason: short(outcome.reason, 1024) }),
    };
    this.executed(outcome.status, outcome.txHash, outcome.via === 'ws' ? 'outcome' : 'receipt', outcome.reason, record, DROPPED_BY_RELAY);
  }

  /** A terminal status learnt from the relay, a receipt, the order events or the journal. */
  executed(status: 'CONFIRMED' | 'REVERTED' | 'DROPPED', txHash: string, how: ResolvedHow, reason: string | null, record: JournalRecordInput | undefined, drop: DropCause): void {
    const hash = txHash === '' ? undefined : this.learnHash(txHash, false);
    if (record !== undefined) this.effect({ type: 'journal', record });
    const revertCode = status === 'REVERTED' ? parseRevertReason(reason).code : null;
    const staleSlot = revertCode === STALE_SLOT_CODE;
    // Before `resolved`: that frees a place under the cap, and the next intent is planned at once.
    if (staleSlot) this.effect({ type: 'stale-view' });
    // Queued before the request is forgotten, so the flush sees it in nonce order.
    const queued = status === 'CONFIRMED' && this.#facts.ordered;
    if (queued) this.effect({ type: 'queue-confirmation', txHash: hash });
    this.finish(how, status, hash, reason);
    if (!queued) this.effect({ type: 'portfolio', status, ...(hash === undefined ? {} : { txHash: hash }) });
    const { requestId } = this.#facts;
    if (status === 'CONFIRMED') {
      this.effect({ type: 'count', counter: 'confirmed' });
      this.effect({ type: 'confirmed', txHash: hash });
      this.fate({ status, requestId, txHash: hash ?? '' });
    } else if (status === 'REVERTED') {
      this.effect({ type: 'count', counter: 'reverted' });
      if (staleSlot) this.effect({ type: 'count', counter: 'staleSlotReverts' });
      else if (revertCode !== MARKET_MOVED_CODE) this.effect({ type: 'failure' });
      // A stale-slot revert is news the engine handles, not an error: debug.
      this.log(staleSlot ? 'debug' : 'info', 'request not executed', { status, code: revertCode, reason, how });
      this.fate({ status, requestId, txHash: hash ?? '', code: revertCode, reason });
    } else {
      this.effect({ type: 'count', counter: 'dropped' });
      this.log('info', 'request not executed', { status, code: drop.code, reason, how });
      this.fate({ status, requestId, txHash: hash ?? '', code: drop.code, reason, ...(drop.details === undefined ? {} : { details: drop.details }) });
    }
    this.effect({ type: 'kick' });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What a REJECTED answer (or late response) says. */
interface RelayErrorAnswer {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
}

function rejectionRecord(requestId: string, answer: RelayErrorAnswer): JournalRecordInput {
  return {
    kind: 'response',
    requestId,
    status: 'REJECTED',
    code: short(answer.code, 128),
    retryable: answer.retryable,
    ...(answer.retryAfterMs === null ? {} : { retryAfterMs: answer.retryAfterMs }),
  };
}

function unknownRecord(requestId: string, answer: { readonly code: string; readonly candidateTxHash: string | null }): JournalRecordInput {
  return { kind: 'response', requestId, status: 'UNKNOWN', code: short(answer.code, 128), ...(answer.candidateTxHash === null ? {} : { txHash: answer.candidateTxHash.toLowerCase() as Hex }) };
}

function short(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
