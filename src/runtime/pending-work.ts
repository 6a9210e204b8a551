/**
 * Work of the in-process venue that is under way and not on the clock: an HTTP request or a relay
 * frame being handled (asynchronous where the venue awaits, e.g. a submission queued behind
 * another). The virtual driver does not move the clock while any of it is pending, so when an
 * answer is ready never depends on how many event-loop turns its handling took.
 */
export interface PendingWork {
  /** Counts `work` as pending until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Counts one piece of work as pending until the returned function is called (the caller calls
   * it once, when the work has settled: `track` without a promise of its own).
   */
  begin(): () => void;
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
    begin() {
      count += 1;
      return done;
    },
    busy: () => count > 0,
  };
}
