/**
 * The persistent cache across a real restart: `src/main.ts` (as `npm start` runs it) in
 * a child process with `CACHE_FILE` in a temporary folder, in front of the simulator.
 * Fill, SIGTERM (graceful stop writes the file), start again: the same data is served
 * with zero upstream requests (the simulator's request log counts them), and the file
 * holds neither the API key nor the key hash secret in clear.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { postToProcess, startGatewayProcess as startProcess, stopGatewayProcess } from '../support/gateway-process';
import type { GatewayProcess } from '../support/gateway-process';
import { UNLIMITED_SIMULATOR } from '../support/upstream-limit';
import { CompanyPageDocument } from '../generated/graphql';

const SECRET = 'restart-test-key-hash-secret';
let simulator: Simulator;
let folder: string;
const children = new Set<ChildProcess>();

/** Starts the gateway process and remembers it, so `afterAll` stops what a failing test left running. */
async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  const started = await startProcess(env);
  children.add(started.child);
  started.child.once('exit', () => children.delete(started.child));
  return started;
}

beforeAll(async () => {
  simulator = await startSimulator(UNLIMITED_SIMULATOR);
  folder = mkdtempSync(join(tmpdir(), 'restart-persistence-'));
});

afterAll(async () => {
  await Promise.all([...children].map((child) => stopGatewayProcess(child)));
  await simulator?.close();
  rmSync(folder, { recursive: true, force: true });
});

it('serves what it had before a SIGTERM restart with zero upstream requests', async () => {
  const cacheFile = join(folder, 'data', 'upstream-cache');
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    STATEV_BASE_URL: simulator.baseUrl,
    UPSTREAM_RATE_LIMIT: 'off', // the simulator has no limit either
    LOG_LEVEL: 'silent',
    CACHE_FILE: cacheFile,
    KEY_HASH_SECRET: SECRET,
  };
  const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };

  const first = await startGatewayProcess(env);
  const filled = await postToProcess(first.url, page);
  expect(filled.errors).toBeUndefined();
  expect(simulator.requests.length).toBeGreaterThan(0);
  expect(await stopGatewayProcess(first.child)).toBe(0);

  expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
  expect(statSync(join(folder, 'data')).mode & 0o777).toBe(0o700);
  const text = readFileSync(cacheFile, 'latin1');
  expect(text).not.toContain(DEMO_KEYS.premium.key);
  expect(text).not.toContain(SECRET);

  simulator.resetRequests();
  const second = await startGatewayProcess(env);
  const served = await postToProcess(second.url, page);
  expect(served.errors).toBeUndefined();
  expect(served.data).toEqual(filled.data);
  expect(served.extensions?.upstream?.requests).toBe(0);
  expect(simulator.requests).toHaveLength(0);
  expect(await stopGatewayProcess(second.child)).toBe(0);
}, 90_000);
