/**
 * Work of the in-process venue that is under way and not on the clock: a submission whose signature
 * is being recovered, a sign-in being verified. Signature recovery goes through a lazily imported
 * module (viem's `recoverPublicKey`), which under a module loader can take event-loop turns; the
 * virtual driver does not move the clock while any of it is pending, so when it finishes does not
 * depend on how fast the machine is.
 */
export interface PendingWork {
  /** Counts `work` as pending until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T>;
  /** True while anything tracked has not settled. */
  busy(): boolean;
}

/** @example const pending = createPendingWork(); await pending.track(dispatch(request)); pending.busy() // false */
export function createPendingWork(): PendingWork {
  let count = 0;
  const done = () => {
    count -= 1;
  };
  return {
    track(work) {
      count += 1;
      work.then(done, done);
      return work;
    },
    busy: () => count > 0,
  };
}
