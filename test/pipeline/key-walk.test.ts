/**
 * The walk of a key from the request to the upstream visits no module twice: the transport
 * reads the credential (credential.ts), the pipeline's steps resolve and hash it once
 * (key-in-use.ts), the context binds it to a session, and the economy hands it to the
 * upstream client. Every exported function and class method of the modules a key can pass
 * through is wrapped; a call whose arguments (or, for the reader, whose answer) hold the
 * key is a visit of its module. The visits up to the first upstream request, with repeats
 * in a row folded, must name each module once: a credential that goes back (to be hashed
 * again, or turned back into another credential type) fails here.
 *
 * The stops are the pipeline's files and the context, and the vault, the economy and the
 * upstream client as one module each (a layer with one entry; inside, the economy passes
 * a key between its parts for every read, several at once). The transports (`web/`,
 * `subscriptions/`) are the driver that calls each stop in turn, not stops; pure functions
 * of the key's text that keep nothing and pass it nowhere (the HMAC, the token-prefix test)
 * are part of the stop that calls them.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DEMO_KEYS } from '../../src/simulator';
import { useStack } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

const SRC = join(__dirname, '../../src');
/** Where a key can pass on its way upstream: the transports, the pipeline, the context, the vault, the economy, the upstream client. */
const WALKED = ['pipeline', 'vault', 'economy', 'upstream', 'context.ts'];
/** The layers that are one stop each. */
const LAYERS = ['vault', 'economy', 'upstream'];
/** Pure functions of the key's text: the HMAC that names it, the test of the token prefix. */
const LEAVES = new Set(['keyId', 'looksLikeToken']);
const KEY = DEMO_KEYS.premium.key;

/** Every TypeScript file under `path` (a folder or a file of src/). */
function filesOf(path: string): string[] {
  if (path.endsWith('.ts')) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(path, entry.name)) : entry.name.endsWith('.ts') ? [join(path, entry.name)] : [],
  );
}

/** True when `value` is the key, or holds it within two levels of properties (a credential, a hashed key, a session). */
function holdsKey(value: unknown, depth = 0): boolean {
  if (value === KEY) return true;
  if (depth >= 2 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  if (Array.isArray(value)) return value.slice(0, 20).some((item) => holdsKey(item, depth + 1));
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof Promise)
    return false;
  return Object.keys(value).some((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, name);
    return descriptor !== undefined && 'value' in descriptor && holdsKey(descriptor.value, depth + 1);
  });
}

const visits: string[] = [];
let walking = false;
/** Told when the key reaches the upstream client. */
let reachedUpstream: () => void = () => undefined;
const restores: Array<() => void> = [];

/** Wraps `holder[name]` (a function): a call holding the key is a visit of `module`. */
function wrap(holder: Record<string, unknown>, name: string, module: string): void {
  const original = holder[name] as (...args: unknown[]) => unknown;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const byArguments = walking && args.some((arg) => holdsKey(arg));
    const at = visits.length;
    if (byArguments) visits.push(module);
    if (byArguments && module === 'upstream') reachedUpstream();
    const answer = original.apply(this, args);
    // A call that answers with the key (the reader) visited its module when it was called, before the calls it made.
    if (walking && !byArguments && holdsKey(answer)) visits.splice(at, 0, module);
    return answer;
  };
  holder[name] = wrapped;
  restores.push(() => {
    holder[name] = original;
  });
}

beforeAll(() => {
  for (const file of WALKED.flatMap((path) => filesOf(join(SRC, path)))) {
    const path = relative(SRC, file);
    const module = LAYERS.find((layer) => path.startsWith(`${layer}/`)) ?? path;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the modules as the gateway loads them (the same registry)
    const exports = require(file) as Record<string, unknown>;
    for (const name of Object.keys(exports)) {
      const descriptor = Object.getOwnPropertyDescriptor(exports, name);
      if (!descriptor || !('value' in descriptor) || typeof descriptor.value !== 'function') continue;
      const value = descriptor.value as { prototype?: Record<string, unknown> };
      if (/^class\b/.test(Function.prototype.toString.call(value))) {
        const prototype = value.prototype as Record<string, unknown>;
        for (const method of Object.getOwnPropertyNames(prototype)) {
          const member = Object.getOwnPropertyDescriptor(prototype, method);
          if (
            method !== 'constructor' &&
            member &&
            'value' in member &&
            typeof member.value === 'function' &&
            member.writable
          )
            wrap(prototype, method, module);
        }
      } else if (descriptor.writable && !LEAVES.has(name)) wrap(exports, name, module);
    }
  }
});

afterAll(() => {
  for (const restore of restores.reverse()) restore();
});

const stack = useStack({ http: true });

/** The modules a key visited until it reached the upstream client, repeats in a row folded. */
async function walk(run: () => Promise<unknown>): Promise<string[]> {
  visits.length = 0;
  const reached = new Promise<void>((resolve) => {
    reachedUpstream = resolve;
  });
  walking = true;
  try {
    await run();
    await reached;
  } finally {
    walking = false;
  }
  const upstream = visits.indexOf('upstream');
  const path = visits
    .slice(0, upstream === -1 ? visits.length : upstream + 1)
    .filter((module, index, all) => index === 0 || all[index - 1] !== module);
  return path;
}

/** The modules a path names more than once. */
function revisited(path: readonly string[]): string[] {
  return path.filter((module, index) => path.indexOf(module) !== index);
}

describe('the walk of a key from the request to the upstream', () => {
  it('over HTTP: read once, resolved and hashed once, no module visited twice', async () => {
    const path = await walk(async () =>
      expect((await stack.post({ query: '{ factories { id } }' }, { key: KEY })).status).toBe(200),
    );
    expect(path[0]).toBe('pipeline/credential.ts');
    expect(path).toContain('pipeline/key-in-use.ts');
    expect(path).toContain('context.ts');
    expect(path.at(-1)).toBe('upstream');
    expect({ path, revisited: revisited(path) }).toEqual({ path, revisited: [] });
  });

  it("over graphql-ws (a subscription, checked against its key's limits before it runs): no module visited twice", async () => {
    const client = wsClient(stack.endpoint, KEY);
    try {
      // Its first poll sends the key upstream; no event needs to come.
      let events: ReturnType<typeof subscribeWs> | undefined;
      const path = await walk(async () => {
        events = subscribeWs(client, 'subscription { myAuctionChanged { kind } }');
      });
      events?.stop();
      expect(path[0]).toBe('pipeline/credential.ts');
      expect(path).toContain('pipeline/key-in-use.ts');
      expect(path.at(-1)).toBe('upstream');
      expect({ path, revisited: revisited(path) }).toEqual({ path, revisited: [] });
    } finally {
      await client.dispose();
    }
  });
});
