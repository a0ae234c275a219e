import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { ClosedConnectionError, ConnectionError, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { UnavailableError } from '../errors.ts';
import { JOURNAL_UNAVAILABLE, toJournalError } from './jetstreamErrors.ts';
import { JetStreamPublisher } from './jetstreamPublisher.ts';

/**
 * One NATS connection with its JetStream clients, reconnecting forever, and aware of whether it is
 * connected right now.
 *
 * Why it tracks that: nats.js clears its outbound buffer on every reconnect attempt, so a request
 * written while disconnected is silently lost and only fails at its timeout. Callers wait for the
 * connection with `whenConnected()` first, so a request made during a broker restart goes out once
 * the client is back instead of vanishing, and appends in flight when it drops fail at once.
 */
export class JetStreamConnection {
  #connected = true;
  #waiters: Array<() => void> = [];
  /** Appends go through it: acks matched on one inbox, failed at once when the connection drops. */
  readonly publisher: JetStreamPublisher;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    timeoutMs: number,
  ) {
    this.publisher = new JetStreamPublisher(nc, timeoutMs);
    void this.#watch();
  }

  /**
   * Connects to `servers` (comma-separated URLs). Throws `UnavailableError` when no server answers.
   */
  static async open(servers: string, timeoutMs: number): Promise<JetStreamConnection> {
    try {
      const nc = await connect({
        servers: servers.split(',').map((s) => s.trim()),
        name: 'gc-supervisor-journal',
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        timeout: timeoutMs,
      });
      const opts = { timeout: timeoutMs };
      return new JetStreamConnection(nc, jetstream(nc, opts), await jetstreamManager(nc, opts), timeoutMs);
    } catch (err) {
      throw await toJournalError(err, servers, undefined, async () => 0);
    }
  }

  /** True while the client holds a live connection to a server. */
  get connected(): boolean {
    return this.#connected;
  }

  /**
   * Resolves at once when connected, else when the client reconnects; throws `UnavailableError`
   * (`journal_unavailable`) after `timeoutMs` without a connection.
   */
  async whenConnected(timeoutMs: number, log: string): Promise<void> {
    if (this.#connected) return;
    let timer: NodeJS.Timeout | undefined;
    let wake: (() => void) | undefined;
    const back = await new Promise<boolean>((resolve) => {
      wake = () => resolve(true);
      this.#waiters.push(wake);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    this.#waiters = this.#waiters.filter((w) => w !== wake);
    if (!back) {
      throw new UnavailableError(`journal ${log}: the NATS broker is unavailable`, JOURNAL_UNAVAILABLE);
    }
  }

  /** Closes the connection; pending waiters are released and then fail on their own requests. */
  async close(): Promise<void> {
    this.publisher.close(new ClosedConnectionError());
    await this.nc.close();
    this.#wake();
  }

  async #watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') {
        this.#connected = false;
        this.publisher.failAll(new ConnectionError('disconnected from the NATS server'));
      }
      if (s.type === 'reconnect') {
        this.#connected = true;
        this.#wake();
      }
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
