/**
 * A journal file system in memory, for runs of the testing kit: the engine keeps its journal exactly
 * as on disk (append, compact by rename, truncate a torn tail), only nothing touches the disk and
 * nothing is left behind.
 */
import type { JournalFs } from '../execution/journal.ts';

export interface MemoryJournalOptions {
  /**
   * Sees every write to a file opened for appending: the journal's records as the engine appends
   * them (a compaction's rewrite goes to a new file and is not seen).
   */
  readonly onAppend?: (bytes: Uint8Array) => void;
}

/**
 * @example
 * const engine = createExecutionEngine(context, { …, journalDir: '/journal', journalFs: memoryJournalFs() });
 */
export function memoryJournalFs(options: MemoryJournalOptions = {}): JournalFs {
  const files = new Map<string, Uint8Array[]>();
  const dirs = new Set<string>();
  const open = new Map<number, string>();
  const appending = new Set<number>();
  let nextFd = 3;
  const missing = (path: string) => Object.assign(new Error(`ENOENT: no such file, ${path}`), { code: 'ENOENT' });
  const fileOf = (fd: number): Uint8Array[] => {
    const path = open.get(fd);
    const chunks = path === undefined ? undefined : files.get(path);
    if (chunks === undefined) throw Object.assign(new Error(`EBADF: bad file descriptor ${fd}`), { code: 'EBADF' });
    return chunks;
  };
  const joined = (chunks: readonly Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  };
  return {
    openSync(path, flags) {
      if (dirs.has(path)) {
        open.set(nextFd, path);
        files.set(path, files.get(path) ?? []);
        return nextFd++;
      }
      if (flags === 'wx' && files.has(path)) throw Object.assign(new Error(`EEXIST: file already exists, ${path}`), { code: 'EEXIST' });
      if (flags === 'w' || flags === 'wx') files.set(path, []);
      else if (flags === 'a') files.set(path, files.get(path) ?? []);
      else if (!files.has(path)) throw missing(path);
      open.set(nextFd, path);
      if (flags === 'a') appending.add(nextFd);
      return nextFd++;
    },
    writeSync(fd, buffer, offset, length) {
      const bytes = buffer.slice(offset, offset + length);
      fileOf(fd).push(bytes);
      if (appending.has(fd)) options.onAppend?.(bytes);
      return length;
    },
    fsyncSync: (fd) => void fileOf(fd),
    ftruncateSync(fd, length) {
      const chunks = fileOf(fd);
      const kept = joined(chunks).slice(0, length);
      chunks.splice(0, chunks.length, kept);
    },
    closeSync(fd) {
      open.delete(fd);
      appending.delete(fd);
    },
    readFileSync(path) {
      const chunks = files.get(path);
      if (chunks === undefined || dirs.has(path)) throw missing(path);
      return joined(chunks);
    },
    renameSync(from, to) {
      const chunks = files.get(from);
      if (chunks === undefined) throw missing(from);
      files.delete(from);
      files.set(to, chunks);
    },
    unlinkSync(path) {
      if (!files.delete(path)) throw missing(path);
    },
    existsSync: (path) => files.has(path) || dirs.has(path),
    mkdirSync(path) {
      for (let dir = path; dir !== '' && dir !== '/' && !dirs.has(dir); dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))) dirs.add(dir);
    },
  };
}
