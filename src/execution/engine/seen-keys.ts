/** Keys seen, with a time each, forgotten once older than a cut-off. */
export class SeenKeys {
  readonly #at = new Map<string, number>();

  has(key: string): boolean {
    return this.#at.has(key);
  }

  /** True when `key` is new (and remembers it). */
  add(key: string, atMs: number): boolean {
    if (this.#at.has(key)) return false;
    this.#at.set(key, atMs);
    return true;
  }

  prune(beforeMs: number): void {
    for (const [key, at] of this.#at) if (at < beforeMs) this.#at.delete(key);
  }
}
