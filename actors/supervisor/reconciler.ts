import { defaultLogger } from '../runtime/logger.ts';

/**
 * Runs a reconcile pass every `tickMs` and whenever poked, one pass at a time: a poke during a pass
 * schedules exactly one more pass after it, so work that arrives mid-pass is never missed and pokes never
 * pile up. Pass failures are reported to `onError` and never stop the ticking.
 */
export class Reconciler {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly tickMs: number,
    private readonly onError: (err: unknown) => void = (err) =>
      defaultLogger().error({ err }, 'reconcile failed'),
  ) {}

  /** Starts ticking and runs a first pass now. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.poke(), Math.max(1, this.tickMs));
    this.#timer.unref();
    this.poke();
  }

  /** Asks for a pass as soon as possible (completion of a request must not wait for a tick). */
  poke(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop();
  }

  /** Resolves once no pass is running (a pass already asked for still runs). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops ticking and waits for the pass in progress. Idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.idle();
  }

  async #loop(): Promise<void> {
    // Yield first so a burst of pokes (e.g. many requests arriving together) shares one pass.
    await new Promise((r) => setImmediate(r));
    do {
      this.#again = false;
      try {
        await this.pass();
      } catch (err) {
        this.onError(err);
      }
    } while (this.#again && !this.#stopped);
    this.#running = undefined;
  }
}
