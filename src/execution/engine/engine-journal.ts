/**
 * The engine's hold on its journal (docs/execution.md "The journal"): the journal open from start to
 * stop, the engine's writes to it, and its failure. A failed journal breaks the engine for good:
 * nothing more is signed, and the tickets waiting to be are refused.
 */
import { BaseError, isBaseError } from '../../core/base-error.ts';
import type { Logger } from '../../core/logger.ts';
import type { JournalRecordInput, LedgerRecord } from '../journal-record.ts';
import { openJournal, type Journal, type JournalContext, type OpenJournalParameters } from '../journal.ts';

/** What the journal's hold needs of the rest of the engine. */
export interface EngineJournalContext {
  readonly logger: Logger;
  /** The journal failed: every ticket waiting to be signed is refused (called in a microtask, after the failing write returned). */
  readonly failed: (refusal: BaseError) => void;
}

export class EngineJournal {
  readonly #ctx: EngineJournalContext;
  #journal: Journal | undefined;
  /** Set when the journal failed: nothing more is signed. */
  #broken: BaseError | undefined;

  constructor(context: EngineJournalContext) {
    this.#ctx = context;
  }

  /** Why the journal failed (then nothing more is signed). */
  get broken(): BaseError | undefined {
    return this.#broken;
  }

  /** Open: between a start that opened it and the stop. */
  get isOpen(): boolean {
    return this.#journal !== undefined;
  }

  open(context: JournalContext, params: OpenJournalParameters): Journal {
    const journal = openJournal(context, params);
    this.#journal = journal;
    return journal;
  }

  /** Writes a record (durable at the next sync); false when the journal is closed or failed (then nothing more is signed). */
  write(input: JournalRecordInput): boolean {
    const journal = this.#journal;
    if (journal === undefined) return false;
    try {
      journal.write(input);
      return true;
    } catch (error) {
      if (isBaseError(error, 'JOURNAL_RECORD_INVALID')) {
        this.#ctx.logger.error({ err: error, kind: input.kind }, 'journal record refused (a bug)');
        return input.kind !== 'signed' && input.kind !== 'planned';
      }
      this.#failed(error);
      return false;
    }
  }

  /**
   * Writes a record that waits for no disk: the records after a request left (answers, outcomes,
   * resolutions) become durable with the next request's `planned` record, or when the journal
   * closes. A crash of the machine (not of the process) may lose the last of them; the restart then
   * reconciles those requests again, which is safe: a restored request is never sent again.
   */
  append(input: JournalRecordInput): boolean {
    return this.write(input);
  }

  /** Resolves once every record written is durable: true, or false when the fsync failed (the journal failed). Only while open. */
  sync(): Promise<boolean> {
    return this.#journal!.sync().then(
      () => true,
      (error: unknown) => (this.#failed(error), false),
    );
  }

  /** A ledger checkpoint (account-truth.ts), durable before it returns. */
  ledger(record: Pick<LedgerRecord, 'markets' | 'balances'>): void {
    this.#journal?.append({ kind: 'ledger', ...record });
  }

  /** Closes the journal, compacted unless it failed or orders are open (then it keeps their slots' history for the next start). */
  close(ordersOpen: () => boolean): void {
    const journal = this.#journal;
    this.#journal = undefined;
    if (journal === undefined) return;
    const open = ordersOpen();
    try {
      if (this.#broken === undefined && !open) journal.compact();
      else if (open) this.#ctx.logger.info('orders are open: the journal keeps its history (their slots) for the next start');
      journal.close();
    } catch (error) {
      this.#ctx.logger.error({ err: error }, 'journal compaction or close failed');
    }
  }

  /** The journal failed: nothing more is signed, and every placement waiting to be is refused. */
  #failed(error: unknown): void {
    if (this.#broken !== undefined) return;
    this.#broken = isBaseError(error) ? error : new BaseError('JOURNAL_UNAVAILABLE', 'the journal failed', { cause: error });
    this.#ctx.logger.error({ err: error }, 'the journal failed: nothing more is signed');
    const refusal = new BaseError('JOURNAL_UNAVAILABLE', `the journal failed, so nothing more is signed: ${this.#broken.message}`);
    queueMicrotask(() => this.#ctx.failed(refusal));
  }
}
