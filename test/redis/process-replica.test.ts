/**
 * Replica B as a real second process (`src/main.ts`, as `npm start` runs it) next to
 * replica A in this process, one simulator, one Redis: what A fetched, B serves from
 * the shared cache without any upstream request.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { CompanyPageDocument } from '../generated/graphql';
import { describeWithRedis, startStack, startTestRedis } from '../support';
import type { HttpStack, TestRedis } from '../support';

const root = join(__dirname, '..', '..');
let redis: TestRedis | undefined;
let a: HttpStack | undefined;
let b: ChildProcess | null = null;
let bUrl = '';
const prefix = `statev-process-${process.pid}:`;

/** Starts `src/main.ts` in its own Node process and resolves to its URL once it listens. */
function startProcessReplica(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'reflect-metadata', join(root, 'src', 'main.ts')], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /gateway on (http:\/\/[^\s/]+)\/graphql/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${output.slice(-800)}`)));
  });
}

describeWithRedis('a replica in another process', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
    a = await startStack({ http: true, redis, config: { redisPrefix: prefix } });
    const started = await startProcessReplica({
      PORT: '0',
      HOST: '127.0.0.1',
      STATEV_BASE_URL: a.simulator.baseUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      RESPONSE_CACHE_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    });
    b = started.child;
    bUrl = started.url;
  }, 60_000);

  afterAll(async () => {
    if (b && b.exitCode === null) {
      const exited = new Promise((resolve) => b?.once('exit', resolve));
      b.kill('SIGTERM');
      await exited;
    }
    await a?.close();
    await redis?.stop();
  });

  it('what replica A fetched, replica B (another process) serves with zero upstream requests', async () => {
    if (!a) throw new Error('no stack');
    const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };
    const first = await post(a.gateway.url, page);
    expect(first.errors).toBeUndefined();
    const sent = a.simulator.requests.length;
    expect(sent).toBeGreaterThan(0);

    const second = await post(bUrl, page);
    expect(second.errors).toBeUndefined();
    expect(second.data).toEqual(first.data);
    expect(second.extensions?.upstream?.requests).toBe(0);
    expect(a.simulator.requests).toHaveLength(sent);
  });
});

async function post(url: string, body: unknown): Promise<{ data?: unknown; errors?: unknown[]; extensions?: { upstream?: { requests: number } } }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { data?: unknown; errors?: unknown[]; extensions?: { upstream?: { requests: number } } };
}
