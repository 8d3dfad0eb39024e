import type { Logger } from 'pino';

/** What {@link RedisHealth} does on the connection's behalf. */
interface HealthHooks {
  /** One PING on the command connection (the probe of a slow Redis). */
  readonly ping: () => Promise<unknown>;
  /** Called on every failure (the replica may have missed invalidations). */
  readonly down: () => void;
  /** Called each time Redis answers again. */
  readonly up: () => void;
}

/**
 * Whether Redis answers, as `RedisSharedState` sees it: one incident logged when it goes
 * away and one line when it is back, a probe (a PING a second) while a slow Redis keeps
 * its connection open (no `ready` event would come), and {@link guard}, which runs a
 * command only while Redis is up and turns its failure into the fallback. When to use:
 * one per Redis connection pair; its owner forwards the connection's events.
 */
export class RedisHealth {
  /** Whether the last Redis command or connection event succeeded. */
  up = false;
  private incidentOpen = false;
  private probe: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  /**
   * @param options - the logger and the metrics hooks of the shared state
   * @param hooks - the probe and what the owner does on each change
   */
  constructor(
    private readonly options: {
      readonly logger: Logger;
      readonly onError?: () => void;
      readonly onState?: (up: boolean) => void;
    },
    private readonly hooks: HealthHooks,
  ) {}

  /** Resolves when Redis answers (at once when it does now). */
  whenUp(): Promise<void> {
    if (this.up) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Redis answered: the probe stops, waiters resume, and an open incident is closed in the log. */
  markUp(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    this.up = true;
    this.options.onState?.(true);
    for (const resolve of this.waiters.splice(0)) resolve();
    this.hooks.up();
    if (this.incidentOpen) {
      this.incidentOpen = false;
      this.options.logger.info({ redis: 'up' }, 'redis is back; shared cache and limits resume');
    }
  }

  /** A command or the connection failed: counted, logged once per incident, probed until it answers. */
  markDown(error: Error): void {
    this.up = false;
    this.hooks.down();
    // A slow Redis keeps its connection, so no 'ready' will come: probe until it answers.
    // markUp clears the probe.
    this.probe ??= setInterval(
      () =>
        void this.hooks.ping().then(
          () => this.markUp(),
          () => undefined,
        ),
      1000,
    );
    this.probe.unref();
    this.options.onState?.(false);
    this.options.onError?.();
    if (!this.incidentOpen) {
      this.incidentOpen = true;
      this.options.logger.warn(
        { redis: 'down', err: error.message },
        'redis unavailable; answering from process memory and the upstream until it is back',
      );
    }
  }

  /** Runs one Redis command; on failure reports the incident and returns `fallback`. */
  async guard<T>(command: () => Promise<T>, fallback: T): Promise<T> {
    if (!this.up) return fallback;
    try {
      return await command();
    } catch (error) {
      this.markDown(error instanceof Error ? error : new Error(String(error)));
      return fallback;
    }
  }

  /** Stops the probe. */
  close(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }
}
