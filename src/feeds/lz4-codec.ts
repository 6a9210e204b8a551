/**
 * Arrow's `LZ4_FRAME` body compression: apache-arrow asks the application for its codecs; this
 * registers ours (lz4-frame.ts: standard frames with content checksums) once, before any feed is
 * written or read.
 */
import { compressionRegistry, CompressionType } from 'apache-arrow';
import { decodeLz4Frame, encodeLz4Frame } from './lz4-frame.ts';

let registered = false;

/** Registers the LZ4 frame codec with apache-arrow (idempotent). */
export function registerLz4Codec(): void {
  if (registered) return;
  compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: encodeLz4Frame, decode: (data: Uint8Array) => decodeLz4Frame(data) });
  registered = true;
}
