/**
 * The cache file (src/economy/cache/cache-file.ts): what it writes comes back with the
 * same wall-clock ages; expired entries and entries "from the future" are dropped; a
 * corrupt file, one of another format version and one written under another
 * KEY_HASH_SECRET are set aside with a warning, never loaded and never thrown; the file
 * is 0600 in a 0700 folder and holds no API key or secret in clear. The clock is a
 * plain variable (no timers are involved).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { CacheFile, CacheSnapshots } from '../../src/economy/cache/cache-file';
import type { CacheEntry } from '../../src/economy/cache/cache-entry';
import { UpstreamCache } from '../../src/economy/cache/upstream-cache';
import { keyId } from '../../src/economy/key-id';
import { createLogger } from '../../src/observability/logger';

const SECRET = 'a-server-side-key-hash-secret';
const API_KEY = 'sk-live-THE-API-KEY-0123456789';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

let folder: string;
let now: number;
let logLines: Array<Record<string, unknown>>;

function logger() {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return createLogger('debug', sink);
}

function newCache(): UpstreamCache {
  return new UpstreamCache({ maxBytes: 10_000_000, now: () => now });
}

function newFile(path = join(folder, '.data', 'upstream-cache'), secret = SECRET): CacheFile {
  return new CacheFile({ path, keyHashSecret: secret, logger: logger(), now: () => now });
}

const id = keyId(API_KEY, SECRET);
const body = (value: unknown, storedAt = now): CacheEntry => ({ kind: 'body', body: value, storedAt, bytes: 0 });
const counterEmpty = (storedAt = now): CacheEntry => ({
  kind: 'failure',
  failure: {
    code: 'NOT_FOUND',
    upstream: { status: 404, endpoint: 'GET /factory/counter/{id}', message: 'Counter is empty' },
    extra: {},
  },
  storedAt,
  bytes: 0,
});

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'cache-file-test-'));
  now = T0;
  logLines = [];
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** A cache with a body (large enough to live in a Buffer), a small body and a failure, written to the file. */
async function writeSample(file: CacheFile): Promise<UpstreamCache> {
  const cache = newCache();
  cache.set(
    `${id}|/factory/list/`,
    body([{ id: 'f1', name: 'Müller – Autohaus', notes: 'x'.repeat(600) }], T0 - 30_000),
    3_600_000,
  );
  cache.set(`${id}|/factory/inventory/f1`, body({ items: [{ item: 'Holz', amount: 3 }] }), 3_600_000);
  cache.set(`${id}|/factory/counter/f1`, counterEmpty(), 3_600_000);
  expect(await file.save(cache)).toBe(true);
  return cache;
}

describe('CacheFile', () => {
  it('loads what it wrote, with the same storedAt (ages in wall-clock time), bodies and failures', async () => {
    const before = await writeSample(newFile());
    now = T0 + 10_000; // "restart" 10 s later
    const after = newCache();
    expect(await newFile().load(after)).toEqual({ loaded: 3, dropped: 0 });
    for (const key of [`${id}|/factory/list/`, `${id}|/factory/inventory/f1`, `${id}|/factory/counter/f1`]) {
      expect(after.get(key)).toEqual(before.get(key));
    }
    expect(after.get(`${id}|/factory/list/`)?.storedAt).toBe(T0 - 30_000); // 40 s old now, not fresh from the file
  });

  it('keeps each entry only until its expiry, and drops entries stored after "now" (the clock went back)', async () => {
    const file = newFile();
    const cache = newCache();
    cache.set(`${id}|/short`, body({ a: 1 }), 60_000);
    cache.set(`${id}|/long`, body({ b: 2 }), 600_000);
    await file.save(cache);

    now = T0 + 120_000;
    const later = newCache();
    expect(await newFile().load(later)).toEqual({ loaded: 1, dropped: 1 });
    expect(later.get(`${id}|/short`)).toBeUndefined();
    expect(later.get(`${id}|/long`)).toMatchObject({ body: { b: 2 }, storedAt: T0 });

    now = T0 - 1_000;
    const earlier = newCache();
    expect(await newFile().load(earlier)).toEqual({ loaded: 0, dropped: 2 });
  });

  it('creates the file 0600 in a 0700 folder, atomically replaced, and skips writing an unchanged cache', async () => {
    const file = newFile();
    const cache = await writeSample(file);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(folder, '.data')).mode & 0o777).toBe(0o700);
    expect(await file.save(cache)).toBe(false); // nothing changed
    cache.delete(`${id}|/factory/counter/f1`);
    expect(await file.save(cache)).toBe(true);
    expect(readdirSync(join(folder, '.data'))).toEqual(['upstream-cache']); // no temporary file left behind
    const reloaded = newCache();
    expect(await newFile().load(reloaded)).toEqual({ loaded: 2, dropped: 0 });
  });

  it('holds no API key, no secret and no key hash secret in clear', async () => {
    const file = newFile();
    await writeSample(file);
    const text = readFileSync(file.path, 'latin1');
    expect(text).toContain(id); // the HMAC id, as in memory and Redis
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('THE-API-KEY');
  });

  it.each([
    [
      'a flipped byte',
      (content: Buffer) => Buffer.concat([content.subarray(0, 200), Buffer.from('X'), content.subarray(201)]),
    ],
    ['a torn write (cut in the middle)', (content: Buffer) => content.subarray(0, Math.floor(content.length / 2))],
    ['an empty file', () => Buffer.alloc(0)],
    ['another program’s file', () => Buffer.from('{"hello":"world"}\n')],
  ])('sets a corrupt file aside with a warning and loads nothing: %s', async (_name, damage) => {
    const file = newFile();
    await writeSample(file);
    writeFileSync(file.path, damage(readFileSync(file.path)));
    const cache = newCache();
    const result = await newFile().load(cache);
    expect(result).toMatchObject({ loaded: 0, setAside: 'corrupt' });
    expect(cache.size).toBe(0);
    expect(() => statSync(file.path)).toThrow(); // moved away, so the next snapshot starts a clean file
    expect(statSync(result.setAsidePath ?? '').isFile()).toBe(true);
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 40, reason: 'corrupt', msg: expect.stringContaining('set aside') }),
    );
  });

  it('sets aside a file of another format version, never guessing at its entries', async () => {
    const file = newFile();
    await writeSample(file);
    const content = readFileSync(file.path, 'utf8');
    writeFileSync(
      file.path,
      content.replace(/^statev-gateway-upstream-cache 1\n/, 'statev-gateway-upstream-cache 2\n'),
    );
    const cache = newCache();
    expect(await newFile().load(cache)).toMatchObject({ loaded: 0, setAside: 'other-version' });
    expect(cache.size).toBe(0);
    expect(logLines).toContainEqual(expect.objectContaining({ level: 40, reason: 'other-version' }));
  });

  it('sets aside a file written under another KEY_HASH_SECRET (its ids can never match)', async () => {
    await writeSample(newFile());
    const cache = newCache();
    expect(await newFile(undefined, 'another-secret').load(cache)).toMatchObject({
      loaded: 0,
      setAside: 'other-secret',
    });
    expect(cache.size).toBe(0);
  });

  it('starts empty without a file, and a missing folder is created at the first write', async () => {
    const path = join(folder, 'a', 'b', 'cache');
    const cache = newCache();
    expect(await newFile(path).load(cache)).toEqual({ loaded: 0, dropped: 0 });
    cache.set(`${id}|/x`, body(1), 60_000);
    expect(await newFile(path).save(cache)).toBe(true);
    expect(statSync(path).isFile()).toBe(true);
  });
});

describe('CacheSnapshots', () => {
  it('writes nothing before the file was loaded, so a gateway that failed to start keeps the last snapshot', async () => {
    const file = newFile();
    await writeSample(file);
    const snapshots = new CacheSnapshots(newFile(), newCache(), 60_000, logger());
    await snapshots.close(); // never loaded
    expect(await newFile().load(newCache())).toEqual({ loaded: 3, dropped: 0 });
  });

  it('writes at close after load, and logs (not throws) when the file cannot be written', async () => {
    const cache = newCache();
    const snapshots = new CacheSnapshots(newFile(), cache, 60_000, logger());
    await snapshots.load();
    cache.set(`${id}|/x`, body(1), 60_000);
    await snapshots.close();
    expect(await newFile().load(newCache())).toEqual({ loaded: 1, dropped: 0 });

    writeFileSync(join(folder, 'not-a-folder'), 'x');
    const broken = new CacheSnapshots(newFile(join(folder, 'not-a-folder', 'cache')), cache, 60_000, logger());
    await broken.load();
    cache.set(`${id}|/y`, body(2), 60_000);
    await expect(broken.save()).resolves.toBe(false);
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringContaining('could not be written') }),
    );
  });
});
