/**
 * What every importer of public data takes and returns (`clobbot import <source>`): input files in,
 * one normalized feed out, written to `<out>.partial` and renamed only when complete.
 */
import { basename } from 'node:path';
import { BaseError } from '../../core/base-error.ts';
import { fileSha256 } from '../file-sha256.ts';
import type { FeedHeader } from '../feed-header.ts';

export interface ImportParameters {
  /** The input files, in time order. */
  readonly inputs: readonly string[];
  /** The feed to write (`.arrow`). */
  readonly out: string;
  /** The market's symbol when the input does not name it. */
  readonly symbol?: string;
  /** The tick and lot sizes (`0.01`); inferred from the data when not given. */
  readonly tickSize?: string;
  readonly lotSize?: string;
  /** Resynchronise after a sequence gap (and report it) instead of refusing the input. */
  readonly allowGaps?: boolean;
  /** Called now and then with the rows written so far. */
  readonly onProgress?: (progress: { readonly rows: number; readonly inputBytes: number }) => void;
}

export interface ImportResult {
  readonly header: FeedHeader;
  readonly rows: number;
  /** Gaps found (and written as gap rows), with where they are. */
  readonly gaps: readonly ImportGap[];
  /** What the importer did that the user should know. */
  readonly notes: readonly string[];
}

export interface ImportGap {
  readonly kind: 'book' | 'trades';
  readonly file: string;
  readonly line: number;
  /** What was expected and what came, e.g. `U 50093239301 after u 50093239224`. */
  readonly message: string;
}

export type Importer = (params: ImportParameters) => Promise<ImportResult>;

/** FEED_RECORD_INVALID naming the file and line (1-based) of a bad record. */
export function invalidRecord(file: string, line: number, message: string): BaseError {
  return new BaseError('FEED_RECORD_INVALID', `${file}:${line}: ${message}`, { details: { file, line } });
}

/** The `source.files` entry of an input: its base name and the SHA-256 of its content. */
export function describeInput(path: string): { name: string; sha256: string } {
  return { name: basename(path), sha256: fileSha256(path) };
}
