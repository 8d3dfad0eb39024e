/**
 * The hostile scenario's half-open SSE attack (`sse-half-open-20`): 20 graphql-sse
 * subscriptions whose link is pulled (before the fix their places were held 931–946 s, and
 * the key was refused new subscriptions meanwhile). A pulled link cannot be played on the
 * bench's loopback (the kernel acknowledges for a paused client), so the attack runs in a
 * network namespace of its own (`unshare -rn`, no privileges needed where user namespaces
 * are allowed) with a veth link: bench/half-open.ts starts a simulator and a gateway there,
 * opens the streams over the link's address, removes that address, and measures. The
 * figures are that gateway's (`ownGateway`: `/healthz` wait, event-loop p99, RSS growth), and
 * `freedAfterMs` (target 60,000). Where no such namespace can be made the attack reports
 * `skipped` with the reason.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../lib/bench';
import type { Service } from '../lib/processes';

/** What the attack reports (`ownGateway` replaces the scenario gateway's figures in hostile.ts). */
type Outcome = Record<string, unknown> & { internalErrors: number };

/** Target of the time until the places are free, ms. */
const FREED_TARGET_MS = 60_000;
const SETUP =
  'ip link set lo up && ip link add v0 type veth peer name v1 && ip addr add 10.9.0.1/32 dev v0 && ip link set v1 up && ip link set v0 up';

/** Why a namespace with a veth link cannot be made here, or null when it can. */
function namespaceUnavailable(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link add v0 type veth peer name v1'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return probe.status === 0
    ? null
    : `unshare -rn with a veth link failed: ${(probe.stderr || probe.error?.message || `status ${probe.status}`).trim()}`;
}

async function halfOpen(quick: boolean): Promise<Outcome> {
  const unavailable = namespaceUnavailable();
  if (unavailable !== null) return { skipped: unavailable, internalErrors: 0 };
  // Quick (CI's smoke run): shorter keep-alives and timeout, the same path.
  const env = quick ? 'SUBSCRIPTION_KEEP_ALIVE_MS=2000,SSE_DEAD_PEER_TIMEOUT_MS=5000' : '';
  const boundMs = quick ? 30_000 : 120_000;
  const child = spawn(
    'unshare',
    [
      '-rn',
      'sh',
      '-c',
      `${SETUP} && exec "$0" "$@"`,
      process.execPath,
      join(ROOT, 'dist', 'bench', 'half-open.js'),
      '--root',
      ROOT,
      '--bound-ms',
      String(boundMs),
      '--gateway-env',
      env,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = /^half-open result (.*)$/m.exec(output)?.[1];
  if (code !== 0 || line === undefined) throw new Error(`bench/half-open.js failed (${code}): ${output.slice(-2000)}`);
  const result = JSON.parse(line) as {
    freedAfterMs: number | null;
    healthzWorstMs: number;
    healthzFailures: number;
    eventLoopP99Ms: number | null;
    eventLoopMaxMs: number | null;
    rssGrowthMb: number | null;
  } & Record<string, unknown>;
  return {
    ...result,
    settings: env || 'defaults (SUBSCRIPTION_KEEP_ALIVE_MS=12000, SSE_DEAD_PEER_TIMEOUT_MS=30000)',
    freedWithin60s: result.freedAfterMs !== null && result.freedAfterMs <= FREED_TARGET_MS,
    ownGateway: {
      healthzWorstMs: result.healthzWorstMs,
      healthzFailures: result.healthzFailures,
      eventLoopP99Ms: result.eventLoopP99Ms,
      eventLoopMaxMs: result.eventLoopMaxMs,
    },
    internalErrors: 0,
  };
}

/** The half-open attack, as hostile.ts runs it. */
export function halfOpenAttack(quick: boolean): {
  name: string;
  description: string;
  run: (gateway: Service) => Promise<Outcome>;
} {
  return {
    name: 'sse-half-open-20',
    description: `20 graphql-sse subscriptions (one key) whose link is pulled (a half-open connection, in a network namespace of its own with a gateway of its own${quick ? ', keep-alive 2 s and dead-peer timeout 5 s' : ''}); how long until their places are free (target ${FREED_TARGET_MS / 1000} s)`,
    run: () => halfOpen(quick),
  };
}
