/**
 * The records of the execution journal and their line format: one JSON object per line, ending in
 * the checksum of the line before it and a CRC-32 of the rest of the line, so a torn or altered line,
 * and a line deleted from between two others, are detected on reading.
 *
 * A line is `JSON.stringify(record)` with `,"prev":"pppppppp","crc":"xxxxxxxx"` inserted before its
 * closing brace: `prev` is the `crc` of the line before it in the file (`00000000` for the first),
 * and `crc` the CRC-32 (IEEE, as zlib and gzip compute it) of the UTF-8 bytes of the line without
 * its `,"crc":"…"` (so `prev` is covered), in 8 lowercase hex digits. Each line is still one JSON
 * object. Lines written before `prev` existed have none; the next compaction links them.
 *
 * @example
 * {"seq":7,"at":1723075200000,"kind":"sent","requestId":"0191…","transport":"ws","prev":"0c7f31d2","crc":"1c291ca3"}
 */
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { OUTCOME_STATUSES, RelayMethod } from '../protocol/constants.ts';
import { hexBytes, lowercaseAddress, uintText, type Address } from '../protocol/encoding.ts';
import { uuidv7Schema } from '../protocol/relay-request.ts';
import type { Intent, IntentType } from '../strategy/intents.ts';

export const INTENT_TYPES = [
  'PlaceAndCancel',
  'ReplaceSlots',
  'CancelTrigger',
  'CancelAll',
  'CreateBatchTrigger',
  'CreateReplaceTrigger',
] as const satisfies readonly IntentType[];

export const RELAY_METHODS = Object.values(RelayMethod) as [string, ...string[]];

/** How a request left: the relay WebSocket or `POST /relay`. */
export const JOURNAL_TRANSPORTS = ['ws', 'rest'] as const;
export type JournalTransport = (typeof JOURNAL_TRANSPORTS)[number];

/** How an unresolved request got its final status. */
export const RESOLVED_HOW = ['outcome', 'receipt', 'order-events', 'never-sent', 'rejected'] as const;
export type ResolvedHow = (typeof RESOLVED_HOW)[number];

/** The final status of a request: an outcome status, REJECTED (never executed) or NOT_SENT. */
export const FINAL_STATUSES = [...OUTCOME_STATUSES, 'REJECTED', 'NOT_SENT'] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];

const txHash = hexBytes(32);

/** What the journal keeps of the intent behind a request (not its orders: the body has those). */
export const intentSummarySchema = z.strictObject({
  type: z.enum(INTENT_TYPES),
  /** Lowercase market address; null for intents without one (CancelTrigger, CancelAll of every market). */
  market: lowercaseAddress.nullable(),
  purpose: z.string().max(256),
});
export type IntentSummary = z.output<typeof intentSummarySchema>;

const header = {
  /** Strictly increasing within the file (gaps after compaction). */
  seq: z.number().int().positive(),
  /** Clock time of the append, ms since the epoch. */
  at: z.number().int().nonnegative(),
};

/**
 * A request about to be signed, recorded before it can be sent: its nonce, and its wire JSON text
 * with an all-zero signature (`unsigned`), which tells a restart its plan and deadline. The engine
 * has it fsynced while the signature is computed; its `signed` record follows the send. The signature makes
 * the body, not the plan: a restart needs no more to reconcile the request.
 */
export const plannedRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('planned'),
  requestId: uuidv7Schema,
  /** The intent nonce, a canonical uint64 decimal string. */
  nonce: uintText(64),
  method: z.enum(RELAY_METHODS),
  intent: intentSummarySchema.nullable(),
  unsigned: z.string().min(2),
  retryOf: uuidv7Schema.optional(),
});

/**
 * A signed request, recorded before it is sent. `body` is the exact wire JSON text. After a
 * `planned` record of the same request and nonce it completes that request.
 */
export const signedRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('signed'),
  requestId: uuidv7Schema,
  /** The intent nonce, a canonical uint64 decimal string. */
  nonce: uintText(64),
  method: z.enum(RELAY_METHODS),
  /** null for requests that no strategy intent asked for (e.g. the account setup's signer grant). */
  intent: intentSummarySchema.nullable(),
  body: z.string().min(2),
  /** A later attempt of the same intent (signed anew after the first could not be sent): the first attempt's request id. */
  retryOf: uuidv7Schema.optional(),
  /** Always null: the sponsor's transaction hash is known only from the relay's answer. */
  txHash: z.null().default(null),
});

/** The request left on a transport (once per attempt). */
export const sentRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('sent'),
  requestId: uuidv7Schema,
  transport: z.enum(JOURNAL_TRANSPORTS),
});

/** The relay's immediate answer. `txHash`: BROADCAST's txHash, or the candidateTxHash of a failure. */
export const responseRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('response'),
  requestId: uuidv7Schema,
  status: z.enum(['BROADCAST', 'REJECTED', 'UNKNOWN']),
  txHash: txHash.optional(),
  code: z.string().min(1).max(128).optional(),
  retryable: z.boolean().optional(),
  retryAfterMs: z.number().int().nonnegative().optional(),
});

/** The terminal outcome of the request's transaction (WebSocket outcome message). */
export const outcomeRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('outcome'),
  requestId: uuidv7Schema,
  txHash,
  status: z.enum(OUTCOME_STATUSES),
  blockNumber: uintText(64).optional(),
  reason: z.string().max(1024).optional(),
});

/** The request is settled: nothing more will happen to it. Only unresolved requests survive compaction. */
export const resolvedRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('resolved'),
  requestId: uuidv7Schema,
  how: z.enum(RESOLVED_HOW),
  status: z.enum(FINAL_STATUSES),
  txHash: txHash.optional(),
  reason: z.string().max(1024).optional(),
});

/** No nonce at or below this one may be used again (written by compaction, or on learning a higher one). */
export const nonceFloorRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('nonce-floor'),
  nonce: uintText(64),
});

/** A signed integer as canonical decimal text (no `-0`). */
const intText = z.string().regex(/^(?:0|-?[1-9][0-9]{0,99})$/, 'expected a canonical signed decimal integer');
/** A fill's key (`fillKey`: `txHash:orderId:filledSize:updatedSize`). */
const fillKeyText = z.string().regex(/^0x[0-9a-f]{64}:[0-9]{1,20}:[0-9]{1,40}:[0-9]{1,40}$/, 'expected a fill key');

/** One market of a ledger checkpoint (account-ledger.ts). */
export const ledgerMarketSchema = z.strictObject({
  market: lowercaseAddress,
  /** Size units, signed. */
  position: intText,
  /** Raw quote units. */
  costBasis: intText,
  realizedPnl: intText,
  fees: intText,
  fills: z.number().int().nonnegative(),
  throughMs: z.number().int().nonnegative(),
  /** The counted fills at or after `throughMs`. */
  recent: z.array(z.strictObject({ key: fillKeyText, timeMs: z.number().int().nonnegative() })).max(10_000),
});

/**
 * The account's ledger per market as of a horizon (account-ledger.ts), and the token balances
 * (raw units, free and locked) the chain showed at the last read: what a restart starts from. Only
 * the newest survives compaction.
 */
export const ledgerRecordSchema = z.strictObject({
  ...header,
  kind: z.literal('ledger'),
  markets: z.array(ledgerMarketSchema).max(1_000),
  balances: z.array(z.strictObject({ token: lowercaseAddress, total: uintText(256) })).max(2_000),
});

export const journalRecordSchema = z.discriminatedUnion('kind', [
  plannedRecordSchema,
  signedRecordSchema,
  sentRecordSchema,
  responseRecordSchema,
  outcomeRecordSchema,
  resolvedRecordSchema,
  nonceFloorRecordSchema,
  ledgerRecordSchema,
]);

export type JournalRecord = z.output<typeof journalRecordSchema>;
export type JournalRecordKind = JournalRecord['kind'];
export type PlannedRecord = z.output<typeof plannedRecordSchema>;
export type SignedRecord = z.output<typeof signedRecordSchema>;
export type SentRecord = z.output<typeof sentRecordSchema>;
export type ResponseRecord = z.output<typeof responseRecordSchema>;
export type OutcomeRecord = z.output<typeof outcomeRecordSchema>;
export type ResolvedRecord = z.output<typeof resolvedRecordSchema>;
export type NonceFloorRecord = z.output<typeof nonceFloorRecordSchema>;
export type LedgerRecord = z.output<typeof ledgerRecordSchema>;

type Input<S extends z.ZodType> = Omit<z.input<S>, 'seq' | 'at'>;
/** What a caller appends: a record without `seq` and `at`, which the journal assigns. */
export type JournalRecordInput =
  | Input<typeof plannedRecordSchema>
  | Input<typeof signedRecordSchema>
  | Input<typeof sentRecordSchema>
  | Input<typeof responseRecordSchema>
  | Input<typeof outcomeRecordSchema>
  | Input<typeof resolvedRecordSchema>
  | Input<typeof nonceFloorRecordSchema>
  | Input<typeof ledgerRecordSchema>;

/**
 * The journal's summary of an intent: type, lowercase market (or null), purpose.
 *
 * @example summarizeIntent({ type: 'CancelAll', purpose: 'kill-switch' }) // { type: 'CancelAll', market: null, purpose: 'kill-switch' }
 */
export function summarizeIntent(intent: Intent): IntentSummary {
  const market = 'market' in intent && intent.market !== undefined ? (intent.market.toLowerCase() as Address) : null;
  return { type: intent.type, market, purpose: intent.purpose };
}

/** `prev` (absent on lines written before it existed) and `crc`, at the end of a line. */
const LINE_END = /(?:,"prev":"([0-9a-f]{8})")?,"crc":"([0-9a-f]{8})"\}$/;
const CRC_FIELD_LENGTH = ',"crc":"00000000"}'.length;

/** The `prev` of a file's first line. */
export const FIRST_LINE_PREV = '00000000';

function crcHex(text: string): string {
  return crc32(text).toString(16).padStart(8, '0');
}

/** One journal line for `record` after a line whose checksum is `prev`, with its checksum and the final newline. */
export function encodeJournalLine(record: JournalRecord, prev: string = FIRST_LINE_PREV): string {
  const linked = `${JSON.stringify(record).slice(0, -1)},"prev":"${prev}"}`;
  return `${linked.slice(0, -1)},"crc":"${crcHex(linked)}"}\n`;
}

/** The checksum of a line `encodeJournalLine` made: what the next line names as its `prev`. */
export function journalLineCrc(line: string): string {
  const end = line.endsWith('\n') ? line.length - 1 : line.length;
  return line.slice(end - 10, end - 2);
}

/** Why a line cannot be read; undefined when it reads. */
export type LineProblem = 'checksum-missing' | 'checksum-mismatch' | 'invalid-json' | 'invalid-record';

/** A line read: its record, the checksum it names as the line before it's (undefined on old lines), and its own. */
export interface JournalLine {
  readonly record: JournalRecord;
  readonly prev: string | undefined;
  readonly crc: string;
}

/**
 * Reads one line (without its newline). Throws JOURNAL_CORRUPT naming `lineNumber` and the file.
 */
export function decodeJournalLine(line: string, where: { readonly path: string; readonly lineNumber: number }): JournalRecord {
  return readJournalLine(line, where).record;
}

/** `decodeJournalLine` with the line's links, for checking that no line is missing between two. */
export function readJournalLine(line: string, where: { readonly path: string; readonly lineNumber: number }): JournalLine {
  const corrupt = (problem: LineProblem, message: string, cause?: unknown) =>
    new BaseError('JOURNAL_CORRUPT', `journal ${where.path} line ${where.lineNumber}: ${message}`, {
      details: { path: where.path, line: where.lineNumber, problem },
      ...(cause === undefined ? {} : { cause }),
    });
  const match = LINE_END.exec(line);
  if (!match) throw corrupt('checksum-missing', 'no checksum at the end of the line');
  const crc = match[2]!;
  if (crcHex(`${line.slice(0, line.length - CRC_FIELD_LENGTH)}}`) !== crc) throw corrupt('checksum-mismatch', 'checksum mismatch');
  const body = `${line.slice(0, match.index)}}`;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw corrupt('invalid-json', 'not valid JSON', error);
  }
  const parsed = journalRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw corrupt('invalid-record', `not a journal record: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { record: parsed.data, prev: match[1], crc };
}
