/**
 * The structure of an Arrow IPC file checked before apache-arrow reads it. apache-arrow trusts the
 * file's flatbuffer metadata: one flipped bit in the footer or a record batch's message header can
 * make it allocate gigabytes, loop for minutes or read nothing without a word. This bounds-checked
 * reader goes over exactly what apache-arrow will read — the footer (its schema, the blocks of the
 * record and dictionary batches) once, each batch's message header before that batch — and refuses a
 * damaged file with FEED_UNREADABLE naming the byte. It reads the footer and the message headers
 * only (O(metadata)): bodies stay for the LZ4 frame checksums.
 *
 * The layout (Arrow columnar format, "IPC File Format"; the field order and vtable slots as in
 * apache-arrow's generated fb/*.js readers):
 *
 *   "ARROW1" <pad to 8> <schema message> <dictionary and record batch messages>… <footer> <int32 footer length> "ARROW1"
 *   message: 0xFFFFFFFF <int32 metadata length> <Message flatbuffer, padded> <body of bodyLength bytes>
 *   Footer { version: short, schema: Schema, dictionaries: [Block], recordBatches: [Block], custom_metadata: [KeyValue] }
 *   Block (struct, 24 bytes) { offset: long, metaDataLength: int, <pad 4>, bodyLength: long }
 *   Message { version: short, header_type: ubyte, header: union, bodyLength: long, custom_metadata: [KeyValue] }
 *   RecordBatch { length: long, nodes: [FieldNode (length, null_count: long)], buffers: [Buffer (offset, length: long)], compression: BodyCompression, variadicBufferCounts: [long] }
 *
 * The file reader takes its schema from the footer: the schema message at the start is not read.
 *
 * Why one file of this size: the footer and message checks share the bounds-checked flatbuffer
 * reading (tables, vtables, vectors, forward-only offsets, the visit budget); split, each half would
 * need that reader exported and its budget rules stated twice.
 */
import type { FileHandle } from 'node:fs/promises';
import { BaseError } from '../core/base-error.ts';

const MAGIC = 'ARROW1';
/** "ARROW1" and its padding to 8 bytes at the start of the file. */
const HEAD_BYTES = 8;
/** The footer length (int32) and "ARROW1" at the end of the file. */
const TAIL_BYTES = 10;
const BLOCK_BYTES = 24;
const CONTINUATION = -1;
/** The end-of-stream marker some writers put before the footer. */
const EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
/** Message header types (MessageHeader union). */
const HEADER_DICTIONARY_BATCH = 2;
const HEADER_RECORD_BATCH = 3;
/** Field type union: the Union type carries a vector (typeIds). */
const TYPE_UNION = 14;
/** No real schema nests deeper; a damaged one could recurse as deep as its bytes allow. */
const MAX_DEPTH = 64;
/** No sane batch has more rows (apache-arrow's lengths are JavaScript numbers; our batches hold 65,536). */
const MAX_ROWS = 2 ** 31 - 1;

/** One message of the file as the footer lists it. */
export interface ArrowBlock {
  readonly offset: number;
  readonly metaDataLength: number;
  readonly bodyLength: number;
}

/** What the footer says, checked: where each message lies, and how many fields (nodes) a batch has. */
export interface ArrowLayout {
  readonly size: number;
  /** Where the footer starts: every message ends before it. */
  readonly footerStart: number;
  readonly recordBatches: readonly ArrowBlock[];
  readonly dictionaries: readonly ArrowBlock[];
  /** The schema's fields, children included (depth first): a record batch has one node per field. */
  readonly fieldCount: number;
}

/** A damaged structure at byte `position` of the file. */
class Damage extends Error {
  constructor(
    readonly position: number,
    why: string,
  ) {
    super(why);
  }
}

/**
 * A flatbuffer at file position `base`, read with every offset checked against its bytes. uoffsets
 * must point forward (flatbuffers writes them so; apache-arrow reads them signed, so a backward one
 * could make a cycle), and the number of objects visited is bounded by the bytes, so that shared
 * subtrees cannot multiply the work.
 */
class Flatbuffer {
  private readonly view: DataView;
  private budget: number;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly base: number,
    readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.budget = bytes.byteLength;
  }

  fail(at: number, why: string): never {
    throw new Damage(this.base + at, `${this.what}: ${why}`);
  }

  private need(at: number, length: number, what: string): void {
    if (at < 0 || length < 0 || at + length > this.bytes.byteLength) this.fail(Math.max(0, Math.min(at, this.bytes.byteLength)), `${what} (${length} bytes at ${at}) runs past its ${this.bytes.byteLength} bytes`);
  }

  int32(at: number): number {
    this.need(at, 4, 'an int32');
    return this.view.getInt32(at, true);
  }
  uint16(at: number): number {
    this.need(at, 2, 'a uint16');
    return this.view.getUint16(at, true);
  }
  uint8(at: number): number {
    this.need(at, 1, 'a byte');
    return this.view.getUint8(at);
  }
  int64(at: number, what: string): number {
    this.need(at, 8, what);
    const value = this.view.getBigInt64(at, true);
    if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(at, `${what} is ${value}`);
    return Number(value);
  }

  /** The table a uoffset at `at` points to. */
  deref(at: number, what: string): number {
    const offset = this.int32(at);
    if (offset <= 0) this.fail(at, `the offset to ${what} is ${offset} (offsets point forward)`);
    return at + offset;
  }

  /** Checks the table at `table` (its vtable, and every field inside the table) and returns it. */
  table(table: number, what: string): Table {
    if ((this.budget -= 1) < 0) this.fail(table, `more objects than its bytes can hold (at ${what})`);
    this.need(table, 4, what);
    const vtable = table - this.int32(table);
    this.need(vtable, 4, `the vtable of ${what}`);
    const vtableSize = this.uint16(vtable);
    const tableSize = this.uint16(vtable + 2);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.fail(vtable, `the vtable of ${what} says ${vtableSize} bytes`);
    this.need(vtable, vtableSize, `the vtable of ${what}`);
    if (tableSize < 4) this.fail(vtable + 2, `${what} says it is ${tableSize} bytes`);
    this.need(table, tableSize, what);
    for (let slot = 4; slot < vtableSize; slot += 2) {
      const field = this.uint16(vtable + slot);
      if (field !== 0 && (field < 4 || field >= tableSize)) this.fail(vtable + slot, `field ${(slot - 4) / 2} of ${what} at ${field}, outside its ${tableSize} bytes`);
    }
    return new Table(this, table, vtable, vtableSize, tableSize, what);
  }

  /** The vector a uoffset at `at` points to: its first element and its length, all `elementBytes`-sized elements inside. */
  vector(at: number, elementBytes: number, what: string): { readonly start: number; readonly length: number } {
    const vector = this.deref(at, what);
    const length = this.int32(vector);
    if (length < 0 || vector + 4 + length * elementBytes > this.bytes.byteLength) this.fail(vector, `${what}: a vector of ${length} elements of ${elementBytes} bytes, past the end of the ${this.bytes.byteLength} bytes`);
    return { start: vector + 4, length };
  }

  /** A string (a byte vector). */
  string(at: number, what: string): void {
    this.vector(at, 1, what);
  }

  /** A vector of tables, each checked by `check`. */
  tables(at: number, what: string, check: (table: Table, index: number) => void): number {
    const { start, length } = this.vector(at, 4, what);
    for (let index = 0; index < length; index += 1) check(this.table(this.deref(start + index * 4, `${what}[${index}]`), `${what}[${index}]`), index);
    return length;
  }

  /** The root table. */
  root(what: string): Table {
    return this.table(this.deref(0, what), what);
  }
}

class Table {
  constructor(
    readonly buffer: Flatbuffer,
    readonly at: number,
    private readonly vtable: number,
    private readonly vtableSize: number,
    private readonly size: number,
    readonly what: string,
  ) {}

  /** Where field `slot` (0-based) lies, checked to hold `bytes`; undefined when absent. */
  field(slot: number, bytes: number): number | undefined {
    const entry = 4 + slot * 2;
    if (entry >= this.vtableSize) return undefined;
    const offset = this.buffer.uint16(this.vtable + entry);
    if (offset === 0) return undefined;
    if (offset + bytes > this.size) this.buffer.fail(this.vtable + entry, `field ${slot} of ${this.what} (${bytes} bytes at ${offset}) runs past its ${this.size} bytes`);
    return this.at + offset;
  }

  /** A child table at field `slot`, if present. */
  child(slot: number, what: string): Table | undefined {
    const at = this.field(slot, 4);
    return at === undefined ? undefined : this.buffer.table(this.buffer.deref(at, what), what);
  }

  vector(slot: number, elementBytes: number, what: string): { readonly start: number; readonly length: number } {
    const at = this.field(slot, 4);
    return at === undefined ? { start: 0, length: 0 } : this.buffer.vector(at, elementBytes, what);
  }

  string(slot: number, what: string): void {
    const at = this.field(slot, 4);
    if (at !== undefined) this.buffer.string(at, what);
  }

  tables(slot: number, what: string, check: (table: Table, index: number) => void): number {
    const at = this.field(slot, 4);
    return at === undefined ? 0 : this.buffer.tables(at, what, check);
  }
}

/** KeyValue { key: string, value: string } vectors (custom metadata). */
function checkKeyValues(table: Table, slot: number, what: string): void {
  table.tables(slot, what, (pair, index) => {
    pair.string(0, `${what}[${index}].key`);
    pair.string(1, `${what}[${index}].value`);
  });
}

/**
 * Field { name: string, nullable: bool, type_type: ubyte, type: table, dictionary: DictionaryEncoding,
 * children: [Field], custom_metadata: [KeyValue] }. Returns the fields counted, itself included.
 */
function checkField(field: Table, what: string, depth: number): number {
  if (depth > MAX_DEPTH) field.buffer.fail(field.at, `${what} nests deeper than ${MAX_DEPTH} levels`);
  field.string(0, `${what}.name`);
  field.field(1, 1);
  const typeType = field.field(2, 1);
  const type = field.child(3, `${what}.type`);
  if (type !== undefined && typeType !== undefined && field.buffer.uint8(typeType) === TYPE_UNION) type.vector(1, 4, `${what}.type.typeIds`);
  const dictionary = field.child(4, `${what}.dictionary`);
  if (dictionary !== undefined) {
    dictionary.field(0, 8);
    dictionary.child(1, `${what}.dictionary.indexType`);
  }
  let count = 1;
  field.tables(5, `${what}.children`, (child, index) => {
    count += checkField(child, `${what}.children[${index}]`, depth + 1);
  });
  checkKeyValues(field, 6, `${what}.custom_metadata`);
  return count;
}

function readBlocks(footer: Table, slot: number, what: string): ArrowBlock[] {
  const buffer = footer.buffer;
  const { start, length } = footer.vector(slot, BLOCK_BYTES, what);
  const blocks: ArrowBlock[] = [];
  for (let index = 0; index < length; index += 1) {
    const at = start + index * BLOCK_BYTES;
    blocks.push({ offset: buffer.int64(at, `${what}[${index}].offset`), metaDataLength: buffer.int32(at + 8), bodyLength: buffer.int64(at + 16, `${what}[${index}].bodyLength`) });
  }
  return blocks;
}

/** Reads `length` bytes at `position` (the caller has checked that they lie inside the file). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(bytes, done, length - done, position + done);
    if (bytesRead === 0) throw new Damage(position + done, `the file ended while reading ${length} bytes at ${position}`);
    done += bytesRead;
  }
  return bytes;
}

function unreadable(path: string, damage: Damage, where: string): BaseError {
  return new BaseError('FEED_UNREADABLE', `${path}: damaged Arrow ${where} at byte ${damage.position}: ${damage.message}`, { details: { path, where, position: damage.position } });
}

/**
 * Checks the file's frame and footer: the magic at both ends, the footer length, the footer
 * flatbuffer (its schema, custom metadata and blocks), every block inside the file before the
 * footer, in increasing order and not overlapping. Then each dictionary batch's message header
 * (apache-arrow reads them all when it opens the file). FEED_UNREADABLE naming the byte otherwise.
 */
export async function checkArrowLayout(handle: FileHandle, size: number, path: string): Promise<ArrowLayout> {
  let layout: ArrowLayout;
  try {
    if (size < HEAD_BYTES + TAIL_BYTES) throw new Damage(0, `${size} bytes: too short for an Arrow file`);
    const ends = await readAt(handle, 0, HEAD_BYTES);
    const tail = await readAt(handle, size - TAIL_BYTES, TAIL_BYTES);
    if (ends.subarray(0, 6).toString('latin1') !== MAGIC) throw new Damage(0, 'no ARROW1 magic at the start');
    if (tail.subarray(4).toString('latin1') !== MAGIC) throw new Damage(size - 6, 'no ARROW1 magic at the end');
    const footerLength = tail.readInt32LE(0);
    const footerEnd = size - TAIL_BYTES;
    if (footerLength < 8 || footerLength > footerEnd - HEAD_BYTES) throw new Damage(footerEnd, `the footer length ${footerLength} does not fit in the file (${size} bytes)`);
    const footerStart = footerEnd - footerLength;
    const fb: Flatbuffer = new Flatbuffer(await readAt(handle, footerStart, footerLength), footerStart, 'footer');
    const footer = fb.root('the footer');
    footer.field(0, 2);
    const schema = footer.child(1, 'the schema');
    if (schema === undefined) fb.fail(0, 'no schema');
    schema.field(0, 2);
    let fieldCount = 0;
    schema.tables(1, 'schema.fields', (field, index) => {
      fieldCount += checkField(field, `schema.fields[${index}]`, 0);
    });
    checkKeyValues(schema, 2, 'schema.custom_metadata');
    schema.vector(3, 8, 'schema.features');
    checkKeyValues(footer, 4, 'footer.custom_metadata');
    const dictionaries = readBlocks(footer, 2, 'dictionaries');
    const recordBatches = readBlocks(footer, 3, 'recordBatches');
    // Every message inside the file, after the leading magic, before the footer; in order, apart.
    const all = [...dictionaries.map((block, index) => ({ block, name: `dictionary batch ${index + 1}` })), ...recordBatches.map((block, index) => ({ block, name: `record batch ${index + 1}` }))];
    for (const { block, name } of all) {
      if (block.metaDataLength < 8 || block.metaDataLength % 8 !== 0) throw new Damage(footerStart, `the footer says ${name} has ${block.metaDataLength} bytes of metadata`);
      if (block.offset < HEAD_BYTES || block.offset + block.metaDataLength + block.bodyLength > footerStart) {
        throw new Damage(footerStart, `the footer puts ${name} at bytes ${block.offset}..${block.offset + block.metaDataLength + block.bodyLength}, outside ${HEAD_BYTES}..${footerStart}`);
      }
    }
    const sorted = all.slice().sort((a, b) => a.block.offset - b.block.offset);
    for (let index = 1; index < sorted.length; index += 1) {
      const before = sorted[index - 1]!;
      const after = sorted[index]!;
      const end = before.block.offset + before.block.metaDataLength + before.block.bodyLength;
      if (end > after.block.offset) throw new Damage(footerStart, `the footer puts ${after.name} at byte ${after.block.offset}, inside ${before.name}`);
      // Writers put the messages one after the other: a gap is a message the footer lost.
      if (end < after.block.offset) throw new Damage(end, `bytes ${end}..${after.block.offset} between ${before.name} and ${after.name} belong to no message the footer lists`);
    }
    // Before the first: nothing, or the schema message (which the file reader does not read); after
    // the last: nothing, or an end-of-stream marker. So a footer that lost a block is caught.
    const first = sorted[0]?.block.offset ?? footerStart;
    let end = HEAD_BYTES;
    if (first > HEAD_BYTES) {
      const prefix = await readAt(handle, HEAD_BYTES, 8);
      const length = prefix.readInt32LE(4);
      if (prefix.readInt32LE(0) === CONTINUATION && length > 0 && HEAD_BYTES + 8 + length <= first) end = HEAD_BYTES + 8 + length;
    }
    if (sorted.length > 0) {
      if (end !== first) throw new Damage(end, `bytes ${end}..${first} before the first message the footer lists belong to no message`);
      const last = sorted.at(-1)!;
      end = last.block.offset + last.block.metaDataLength + last.block.bodyLength;
    }
    const gap = footerStart - end;
    if (gap !== 0 && !(gap === 8 && (await readAt(handle, end, 8)).equals(EOS))) throw new Damage(end, `bytes ${end}..${footerStart} before the footer belong to no message the footer lists`);
    for (let index = 1; index < recordBatches.length; index += 1) {
      if (recordBatches[index]!.offset <= recordBatches[index - 1]!.offset) throw new Damage(footerStart, `the footer puts record batch ${index + 1} (byte ${recordBatches[index]!.offset}) before record batch ${index}`);
    }
    layout = { size, footerStart, recordBatches, dictionaries, fieldCount };
  } catch (error) {
    if (error instanceof Damage) throw unreadable(path, error, 'footer');
    throw error;
  }
  for (let index = 0; index < layout.dictionaries.length; index += 1) await checkMessage(handle, layout, layout.dictionaries[index]!, HEADER_DICTIONARY_BATCH, path, `dictionary batch ${index + 1} of ${layout.dictionaries.length}`);
  return layout;
}

/** Checks record batch `index`'s message header (FEED_UNREADABLE naming the byte) before apache-arrow reads it. */
export async function checkRecordBatchMessage(handle: FileHandle, layout: ArrowLayout, index: number, path: string): Promise<void> {
  const block = layout.recordBatches[index];
  if (block === undefined) throw new BaseError('FEED_UNREADABLE', `${path}: no record batch ${index + 1} (the footer lists ${layout.recordBatches.length})`, { details: { path } });
  await checkMessage(handle, layout, block, HEADER_RECORD_BATCH, path, `record batch ${index + 1} of ${layout.recordBatches.length}`);
}

async function checkMessage(handle: FileHandle, layout: ArrowLayout, block: ArrowBlock, headerType: number, path: string, name: string): Promise<void> {
  try {
    const bytes = await readAt(handle, block.offset, block.metaDataLength);
    const continuation = bytes.readInt32LE(0);
    const length = bytes.readInt32LE(4);
    if (continuation !== CONTINUATION) throw new Damage(block.offset, `no message starts there (0x${(continuation >>> 0).toString(16)}, not the continuation marker 0xffffffff)`);
    if (length !== block.metaDataLength - 8) throw new Damage(block.offset + 4, `the message says ${length} bytes of metadata, the footer ${block.metaDataLength - 8}`);
    const fb: Flatbuffer = new Flatbuffer(bytes.subarray(8), block.offset + 8, 'message header');
    const message = fb.root('the message');
    message.field(0, 2);
    const typeAt = message.field(1, 1);
    const type = typeAt === undefined ? 0 : fb.uint8(typeAt);
    if (type !== headerType) fb.fail(typeAt ?? 0, `a message of type ${type}, not ${headerType === HEADER_RECORD_BATCH ? 'a record batch' : 'a dictionary batch'} (${headerType})`);
    const bodyAt = message.field(3, 8);
    const bodyLength = bodyAt === undefined ? 0 : fb.int64(bodyAt, 'the body length');
    if (bodyLength !== block.bodyLength) fb.fail(bodyAt ?? 0, `the message says a body of ${bodyLength} bytes, the footer ${block.bodyLength}`);
    checkKeyValues(message, 4, 'message.custom_metadata');
    let batch = message.child(2, 'the message header');
    if (batch === undefined) fb.fail(0, 'no header');
    if (headerType === HEADER_DICTIONARY_BATCH) {
      batch.field(0, 8);
      batch.field(2, 1);
      batch = batch.child(1, 'the dictionary data');
      if (batch === undefined) fb.fail(0, 'a dictionary batch without data');
    }
    checkRecordBatch(fb, batch, bodyLength, headerType === HEADER_RECORD_BATCH ? layout.fieldCount : undefined);
  } catch (error) {
    if (error instanceof Damage) throw unreadable(path, error, name);
    throw error;
  }
}

/** RecordBatch: its row count, one node per field each as long as the batch, every buffer inside the body. */
function checkRecordBatch(fb: Flatbuffer, batch: Table, bodyLength: number, fieldCount: number | undefined): void {
  const lengthAt = batch.field(0, 8);
  const rows = lengthAt === undefined ? 0 : fb.int64(lengthAt, 'the row count');
  if (rows > MAX_ROWS) fb.fail(lengthAt ?? 0, `${rows} rows`);
  const nodes = batch.vector(1, 16, 'the field nodes');
  if (fieldCount !== undefined && nodes.length !== fieldCount) fb.fail(nodes.start, `${nodes.length} field nodes for ${fieldCount} fields`);
  for (let index = 0; index < nodes.length; index += 1) {
    const at = nodes.start + index * 16;
    const length = fb.int64(at, `node ${index}'s length`);
    const nulls = fb.int64(at + 8, `node ${index}'s null count`);
    if (length > MAX_ROWS) fb.fail(at, `node ${index} has ${length} rows`);
    if (nulls > length) fb.fail(at + 8, `node ${index} has ${nulls} nulls in ${length} rows`);
  }
  // The top-level fields are as long as the batch (the flat columns of a feed: every node).
  if (fieldCount !== undefined && fieldCount === nodes.length) {
    for (let index = 0; index < nodes.length; index += 1) {
      const length = fb.int64(nodes.start + index * 16, `node ${index}'s length`);
      if (length !== rows) fb.fail(nodes.start + index * 16, `node ${index} has ${length} rows, the batch ${rows}`);
    }
  }
  const buffers = batch.vector(2, 16, 'the buffers');
  if (buffers.length > 3 * nodes.length + 64) fb.fail(buffers.start, `${buffers.length} buffers for ${nodes.length} field nodes`);
  const compression = batch.child(3, 'the body compression');
  if (compression !== undefined) {
    compression.field(0, 1);
    compression.field(1, 1);
  }
  let end = 0;
  for (let index = 0; index < buffers.length; index += 1) {
    const at = buffers.start + index * 16;
    const offset = fb.int64(at, `buffer ${index}'s offset`);
    const length = fb.int64(at + 8, `buffer ${index}'s length`);
    if (offset + length > bodyLength) fb.fail(at, `buffer ${index} at ${offset}..${offset + length} runs past the ${bodyLength}-byte body`);
    if (length > 0 && offset < end) fb.fail(at, `buffer ${index} at ${offset} overlaps the buffer before it (ending at ${end})`);
    if (compression !== undefined && length > 0 && length < 8) fb.fail(at + 8, `compressed buffer ${index} of ${length} bytes, shorter than its length prefix`);
    if (length > 0) end = offset + length;
  }
  batch.vector(4, 8, 'the variadic buffer counts');
}
