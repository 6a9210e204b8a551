/**
 * One engine "process" on the in-process venue: the seams it reaches the world through (its clock,
 * the HTTP transport, the relay socket factory, the journal's file system), each wrapped so that the
 * process can die at once. A killed process runs nothing more: its clock callbacks are cancelled,
 * answers still on their way to it are lost, its relay sockets are dropped (the venue sees the
 * connection go, the client hears nothing) and its journal descriptors are closed. What it had
 * already sent still reaches the venue, as on a real crash.
 *
 * The relay link can also be held (frames from the relay wait, unseen) and cut (held frames lost,
 * the socket dropped: both sides see 1006), which is how a test loses answers for good.
 */
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { HttpTransport } from '../../src/clients/http-transport.ts';
import type { RelayClientSocket, WebSocketFactory } from '../../src/clients/relay-socket.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { JournalFs } from '../../src/execution/journal.ts';

type Listener = (...args: never[]) => void;

/** The client end of a relay socket as the process sees it: silent once the process is dead, frames held on demand. */
class ProcessSocket implements RelayClientSocket {
  readonly #held: (() => void)[] = [];

  constructor(
    readonly inner: RelayClientSocket,
    private readonly process: EngineProcess,
  ) {}

  get readyState(): number {
    return this.inner.readyState;
  }

  on(event: string, listener: Listener): this {
    (this.inner.on as (event: string, listener: Listener) => unknown)(event, this.#guard(event, listener));
    return this;
  }

  once(event: 'close', listener: () => void): this {
    this.inner.once(event, this.#guard(event, listener));
    return this;
  }

  #guard(event: string, listener: Listener): Listener {
    return ((...args: never[]) => {
      if (!this.process.alive) return;
      if (event === 'close') this.process.closeCodes.push((args as unknown[])[0] as number);
      // Held: what the relay sends waits here, behind anything held before it.
      if (event === 'message' && (this.process.hold || this.#held.length > 0)) {
        this.#held.push(() => listener(...args));
        return;
      }
      listener(...args);
    }) as Listener;
  }

  /** Delivers what was held (in order). */
  release(): void {
    for (const deliver of this.#held.splice(0)) if (this.process.alive) deliver();
  }

  /** Loses what was held and drops the connection (no close frame). */
  cut(): void {
    this.#held.length = 0;
    this.inner.terminate();
  }

  send(data: string, callback: (error?: Error) => void): void {
    this.inner.send(data, callback);
  }

  close(code: number, reason: string): void {
    this.inner.close(code, reason);
  }

  terminate(): void {
    this.inner.terminate();
  }
}

export interface ProcessSeams {
  readonly clock: Clock;
  readonly transport: HttpTransport;
  readonly createSocket: WebSocketFactory;
  readonly journalFs: JournalFs;
}

export class EngineProcess implements ProcessSeams {
  alive = true;
  /** While true, frames from the relay are held (see `release`, `cutRelay`). */
  hold = false;
  /** Close codes the process's relay sockets reported (a 4008 would mean the relay's limit was hit). */
  readonly closeCodes: number[] = [];
  readonly clock: Clock;
  readonly transport: HttpTransport;
  readonly createSocket: WebSocketFactory;
  readonly journalFs: JournalFs;
  readonly #timers = new Set<Subscription>();
  readonly #sockets = new Set<ProcessSocket>();
  readonly #fds = new Set<number>();

  constructor(private readonly base: ProcessSeams) {
    this.clock = this.#scopedClock(base.clock);
    this.transport = (request) =>
      new Promise((resolve, reject) => {
        if (!this.alive) return;
        base.transport(request).then(
          (answer) => this.alive && resolve(answer),
          (error: unknown) => this.alive && reject(error),
        );
      });
    this.createSocket = (url, options) => {
      const socket = new ProcessSocket(base.createSocket(url, options), this);
      this.#sockets.add(socket);
      socket.inner.once('close', () => this.#sockets.delete(socket));
      return socket;
    };
    this.journalFs = this.#scopedFs(base.journalFs);
  }

  /** The scheduler's work runs only while the process lives, and dies with it. */
  #scopedClock(clock: Clock): Clock {
    const inner = clock.scheduler;
    const process = this;
    const scheduler: SchedulerLike = {
      now: () => inner.now(),
      schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
        if (!process.alive) return Subscription.EMPTY;
        const action = inner.schedule<T>(
          function (this: SchedulerAction<T>, value?: T) {
            if (process.alive) work.call(this, value);
          },
          delay,
          state,
        );
        process.#timers.add(action);
        action.add(() => process.#timers.delete(action));
        return action;
      },
    };
    return { now: () => clock.now(), scheduler };
  }

  #scopedFs(base: JournalFs): JournalFs {
    const check = (op: string) => {
      if (!this.alive) throw new Error(`${op}: the process is dead`);
    };
    return {
      openSync: (path, flags, mode) => {
        check('openSync');
        const fd = base.openSync(path, flags, mode);
        this.#fds.add(fd);
        return fd;
      },
      writeSync: (fd, buffer, offset, length) => (check('writeSync'), base.writeSync(fd, buffer, offset, length)),
      fsyncSync: (fd) => (check('fsyncSync'), base.fsyncSync(fd)),
      ftruncateSync: (fd, length) => (check('ftruncateSync'), base.ftruncateSync(fd, length)),
      closeSync: (fd) => {
        check('closeSync');
        this.#fds.delete(fd);
        base.closeSync(fd);
      },
      readFileSync: (path) => (check('readFileSync'), base.readFileSync(path)),
      renameSync: (from, to) => (check('renameSync'), base.renameSync(from, to)),
      unlinkSync: (path) => (check('unlinkSync'), base.unlinkSync(path)),
      existsSync: (path) => (check('existsSync'), base.existsSync(path)),
      mkdirSync: (path, options) => (check('mkdirSync'), base.mkdirSync(path, options)),
    };
  }

  /** Delivers the relay frames held so far. */
  release(): void {
    this.hold = false;
    for (const socket of this.#sockets) socket.release();
  }

  /** Loses the held relay frames and drops the relay connection (both sides see 1006). */
  cutRelay(): void {
    this.hold = false;
    for (const socket of [...this.#sockets]) socket.cut();
  }

  /** SIGKILL: nothing of the process runs again; the venue sees its sockets drop. */
  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const timer of [...this.#timers]) timer.unsubscribe();
    for (const socket of [...this.#sockets]) socket.terminate();
    this.#sockets.clear();
    for (const fd of this.#fds) this.base.journalFs.closeSync(fd);
    this.#fds.clear();
  }
}
