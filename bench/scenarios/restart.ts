import { join } from 'node:path';
import type { Scenario } from '../lib/bench';
import { CACHE_FILES, log, round } from '../lib/bench';
import { graphqlHeaders, postGraphQL, simRequests, simReset } from '../lib/http';
import type { Service } from '../lib/processes';

/** The restart scenario's key: fresh, used by no other scenario. */
const RESTART_KEY = 'sim-key-700001';

/**
 * restart: a steady stream of dashboard views on one key (5 per second) to a gateway
 * with its cache file (`CACHE_FILE`, as by default without Redis); the gateway is
 * stopped with SIGTERM in the middle of the stream (views in flight drain), started
 * again on the same file, and the stream goes on. Reports the upstream requests the new
 * process sent in its first minute (at most; the stream after the restart lasts
 * `--duration` seconds) for data that was still fresh (target 0) and the views that
 * failed (target 0). Views sent while no process listened are counted apart.
 */
export const restart: Scenario = {
  name: 'restart',
  profilable: false,
  async run(bench) {
    const settings = { CACHE_FILE: join(CACHE_FILES, 'restart') };
    const seconds = Math.min(60, bench.args.durationSeconds);
    const url = (service: Service): string => `${service.origin}/graphql`;
    let target: Service | null = await bench.startGateway('gateway-restart-a', settings, { pinned: true });
    const fill = await postGraphQL(url(target), bench.dashboard, graphqlHeaders(RESTART_KEY, false), 60_000);
    if (fill.status !== 200 || fill.json.errors !== undefined)
      throw new Error(`restart: the first view failed: ${fill.text.slice(0, 200)}`);

    const counts = { before: 0, after: 0, errors: 0, refused: 0 };
    const firstErrors: string[] = [];
    let phase: 'before' | 'after' = 'before';
    let running = true;
    const stream = async (): Promise<void> => {
      while (running) {
        const service = target;
        const tick = new Promise<void>((resolve) => setTimeout(resolve, 200));
        if (service) {
          const counted = phase;
          try {
            const reply = await postGraphQL(url(service), bench.dashboard, graphqlHeaders(RESTART_KEY, false), 30_000);
            counts[counted] += 1;
            if (reply.status !== 200 || reply.json.errors !== undefined)
              throw new Error(`HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            if (/ECONNREFUSED|fetch failed|other side closed|socket/i.test(message) && target !== service) {
              counts.refused += 1; // sent to the process that was stopping: no one listened any more
            } else {
              counts.errors += 1;
              if (firstErrors.length < 5) firstErrors.push(message);
            }
          }
        }
        await tick;
      }
    };
    const streaming = stream();
    await new Promise<void>((resolve) => setTimeout(resolve, (seconds / 2) * 1000));

    const stopping = target;
    const stopStarted = performance.now();
    target = null;
    await bench.stopServer(stopping); // SIGTERM: drains the views in flight, writes the cache file
    await simReset(bench.sim.origin);
    target = await bench.startGateway('gateway-restart-b', settings, { pinned: true });
    const downSeconds = (performance.now() - stopStarted) / 1000;
    phase = 'after';
    await new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));
    running = false;
    await streaming;
    const upstream = (await simRequests(bench.sim.origin)).count;
    await bench.stopServer(target);

    const result = {
      ok: upstream === 0 && counts.errors === 0,
      description: `dashboard views on one key, 5 per second; SIGTERM after ${seconds / 2} s, a new process on the same CACHE_FILE, ${seconds} s more`,
      viewsBefore: counts.before,
      viewsAfter: counts.after,
      refusedWhileRestarting: counts.refused,
      restartSeconds: round(downSeconds, 2),
      upstreamRequestsAfterRestart: upstream,
      errors: counts.errors,
      firstErrors,
      targets: { zeroUpstreamAfterRestart: upstream === 0, zeroErrors: counts.errors === 0 },
    };
    log(
      `restart: ${counts.after} views after the restart with ${upstream} upstream requests, ${counts.errors} errors (restart took ${result.restartSeconds} s)`,
    );
    bench.record('restart', result);
  },
};
