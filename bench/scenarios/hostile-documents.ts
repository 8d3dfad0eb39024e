/**
 * The hostile scenario's attacks on an access token's grants check (the fragment bomb and
 * variables held by the memo), run by bench/scenarios/hostile.ts like its own attacks (`/healthz` polled every
 * 50 ms, the event-loop delay p99 over the attack):
 *
 * - `grants-fragment-doubling-23`: the 1.3 KB fragment bomb of 23 levels
 *   (`fragment Fi on Query { ...Fi+1 ...Fi+1 }`) with a token scoped to one company, over
 *   HTTP (10.5 s of stalled event loop per request before the fix);
 * - `grants-fragment-doubling-32-ws-live`: the same shape, 32 levels, as a live query
 *   (`@live`) over graphql-ws (no `/healthz` answer for 64 s before the fix);
 * - `grants-memo-60kb-variables`: thousands of distinct documents, each with a 60 KB
 *   variable the grants allow (`factory(id: $id)`), whose resolver refuses it with
 *   `FORBIDDEN` (the grants memo held every variable's text: 323 MB for 5,120 requests,
 *   and the value echoed in the message took the run from 8.6 s to 260 s). RSS growth
 *   target 40 MB.
 *
 * The gateway needs a vault for the token: {@link hostileDocuments} writes one (a vault
 * file and a master key, given to the gateway as `VAULT_FILE` and `VAULT_MASTER_KEY`, and a
 * payment store beside them, `PAYMENTS_FILE`), and
 * runs the attacks on a revoked or expired token's streams with it (hostile-tokens.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { FIXTURE_IDS } from '../../src/simulator';
import { MasterKeys, Vault } from '../../src/vault';
import { FileVaultStorage } from '../../src/vault/storage';
import { PREMIUM_KEY, round } from '../lib/bench';
import type { Service } from '../lib/processes';
import { currentRssMb, RssSampler } from '../lib/rss';
import { tokenAttacks } from './hostile-tokens';

/** What an attack reports besides the timings; `memory` is read by hostile.ts for the RSS target. */
type Outcome = Record<string, unknown> & { internalErrors: number };

/** One attack, as hostile.ts runs it. */
interface DocumentAttack {
  name: string;
  description: string;
  run: (gateway: Service) => Promise<Outcome>;
}

/** Target of the gateway's RSS growth over the memo attack, MB (the hostile scenario's other memory target). */
const RSS_TARGET_MB = 40;

/** The bomb: `levels` fragments on Query, each spreading the next twice. */
function doubling(levels: number, live = false): string {
  const parts = [`query Bomb${live ? ' @live' : ''} { ...F0 }`];
  for (let i = 0; i < levels - 1; i += 1) parts.push(`fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  parts.push(`fragment F${levels - 1} on Query { __typename }`);
  return parts.join('\n');
}

/** POSTs `body` `times` times (`concurrency` at a time) with `token`; statuses counted, 5xx and INTERNAL_SERVER_ERROR as internal errors. */
async function postAll(
  gateway: Service,
  token: string,
  bodies: (i: number) => string,
  times: number,
  concurrency: number,
): Promise<Outcome> {
  const statuses: Record<string, number> = {};
  let internalErrors = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < times) {
      const i = next;
      next += 1;
      const response = await fetch(`${gateway.origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: bodies(i),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status >= 500 || text.includes('"INTERNAL_SERVER_ERROR"')) internalErrors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return { requests: times, statuses, internalErrors };
}

/** One live query over graphql-ws with `token`: what its first message was (`next` with data or errors, `error`, or the close). */
async function liveOverWs(gateway: Service, token: string, query: string): Promise<Outcome> {
  const socket = new WebSocket(`${gateway.origin.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  let first = 'none';
  let internalErrors = 0;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 120_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
    );
    socket.on('message', (data: WebSocket.RawData) => {
      const text = String(data);
      const message = JSON.parse(text) as {
        type?: string;
        payload?: { errors?: Array<{ extensions?: { code?: string } }> };
      };
      if (text.includes('"INTERNAL_SERVER_ERROR"')) internalErrors += 1;
      if (message.type === 'connection_ack')
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      else if (message.type === 'next' || message.type === 'error') {
        first = message.type === 'next' ? (message.payload?.errors?.[0]?.extensions?.code ?? 'data') : 'error';
        done();
      }
    });
    socket.once('close', (code) => {
      first = first === 'none' ? `closed ${code}` : first;
      done();
    });
    socket.once('error', () => done());
  });
  socket.terminate();
  return { first, internalErrors };
}

/**
 * Writes a vault with the premium key and one token (`factory:<shop>`, `subscribe`) and
 * returns the gateway environment it needs and the attacks.
 *
 * @param quick - fewer repetitions (`--quick`)
 * @param memoRequests - requests of the memo attack (`--memo-requests`)
 */
export async function hostileDocuments(
  quick: boolean,
  memoRequests: number,
): Promise<{ env: Record<string, string>; attacks: DocumentAttack[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-hostile-vault-'));
  const vaultFile = join(folder, 'vault.json');
  const masterKey = randomBytes(32).toString('base64');
  const vault = new Vault(new FileVaultStorage(vaultFile), MasterKeys.parse(masterKey));
  await vault.addKey('premium', PREMIUM_KEY, null);
  const { token } = await vault.createToken({
    characters: ['premium'],
    grants: [`factory:${FIXTURE_IDS.shop}`, 'subscribe'],
    expiresInMs: 86_400_000,
  });
  const repeat = quick ? 5 : 20;
  return {
    // The payment store beside it: each run starts empty (the project's .data/ would keep the last run's requests).
    env: { VAULT_FILE: vaultFile, VAULT_MASTER_KEY: masterKey, PAYMENTS_FILE: join(folder, 'payments.json') },
    attacks: [
      {
        name: 'grants-fragment-doubling-23',
        description: `a 1.3 KB document of 23 fragment levels, each spreading the next twice, with a token scoped to one company, ${repeat} times`,
        run: (g) => postAll(g, token, () => JSON.stringify({ query: doubling(23) }), repeat, 1),
      },
      {
        name: 'grants-fragment-doubling-32-ws-live',
        description:
          'the same shape, 32 levels, as a live query (@live) over graphql-ws, with a token scoped to one company (grant subscribe)',
        run: (g) => liveOverWs(g, token, doubling(32, true)),
      },
      {
        name: 'grants-memo-60kb-variables',
        description: `${memoRequests.toLocaleString('en')} distinct documents, each with a 60 KB variable the grants allow (factory(id: $id), then FORBIDDEN by its resolver), with a token scoped to one company, 8 at a time; RSS growth target ${RSS_TARGET_MB} MB`,
        run: async (g) => {
          const rssBeforeMb = currentRssMb(g.pid);
          const sampler = new RssSampler(g.pid);
          const pad = 'v'.repeat(60_000);
          const outcome = await postAll(
            g,
            token,
            (i) =>
              JSON.stringify({
                query: `query Memo${i}($id: ID!) { factory(id: $id) { id } }`,
                variables: { id: `${i}-${pad}` },
              }),
            memoRequests,
            8,
          );
          const peakMb = sampler.stop();
          const growthMb = rssBeforeMb === null || peakMb === null ? null : round(peakMb - rssBeforeMb);
          return {
            ...outcome,
            memory: {
              rssBeforeMb: rssBeforeMb === null ? null : round(rssBeforeMb),
              rssPeakMb: peakMb,
              growthMb,
              targetMb: RSS_TARGET_MB,
              growthUnder40Mb: growthMb === null ? null : growthMb <= RSS_TARGET_MB,
            },
          };
        },
      },
      ...tokenAttacks(vault, quick),
    ],
  };
}
