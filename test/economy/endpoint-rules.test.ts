/**
 * The economy's endpoint rules (`EconomyOptions.endpointRules`) as the economy applies
 * them, whatever the endpoint: without a rule a write invalidates nothing; with one it
 * forgets the reads of the scope its body names (and moves the key's generation), a
 * write-through answer becomes the cached read, and the rest of the scope's cached reads
 * stay in this process. The rules here are made up on purpose (a write that changes
 * counters), so nothing depends on the option slots' own rules. The upstream is a stub.
 */
import { OperationAccounting, UpstreamEconomy } from '../../src/economy';
import type { EconomyCaller, EndpointRules } from '../../src/economy';
import type { UpstreamClient } from '../../src/upstream/client';
import { buildPath, ENDPOINTS } from '../../src/upstream/endpoints';
import { bareEconomyOptions } from '../support';

const WRITE = ENDPOINTS.factoryOptionUpdate;
const READ = ENDPOINTS.factoryCounter;

/** A write that names a company in `company` changes that company's counter and inventory. */
const COUNTER_RULES: EndpointRules[] = [
  { endpoint: READ, changedByWrites: true },
  {
    endpoint: WRITE,
    writeScope: (body) =>
      body && typeof body === 'object' && typeof (body as { company?: unknown }).company === 'string'
        ? (body as { company: string }).company
        : null,
    scopeReads: (company) => [buildPath(READ, { id: company }), buildPath(ENDPOINTS.factoryInventory, { id: company })],
  },
];

describe('UpstreamEconomy: endpoint rules', () => {
  let sent: string[];
  const client = {
    send: async (request: { path?: string; body?: unknown }) => {
      sent.push(request.path ?? 'POST');
      return { status: 200, body: request.path ? { read: sent.length } : 'ok', bytes: 10 };
    },
  } as unknown as UpstreamClient;

  function economy(endpointRules?: EndpointRules[]): UpstreamEconomy {
    return new UpstreamEconomy(client, bareEconomyOptions({ endpointRules }));
  }

  const caller = (): EconomyCaller => ({
    keyId: 'hashed-a',
    apiKey: 'key-a',
    noCache: false,
    accounting: new OperationAccounting(),
  });

  beforeEach(() => {
    sent = [];
  });

  it('invalidates nothing on a write without a rule', async () => {
    const upstream = economy();
    await upstream.get(caller(), READ, { id: 'c1' });
    await upstream.post(caller(), WRITE, { company: 'c1' });
    await upstream.get(caller(), READ, { id: 'c1' });
    expect(sent).toEqual(['/factory/counter/c1', 'POST']);
    expect(upstream.generation('hashed-a')).toBe(0);
    expect(upstream.scopeKeys('hashed-a', 'c1')).toEqual([]);
  });

  it('forgets the reads of the scope a write names, and only those, and tells listeners the scope', async () => {
    const upstream = economy(COUNTER_RULES);
    const told: Array<[string, string | null]> = [];
    upstream.onInvalidated((keyId, scope) => told.push([keyId, scope]));
    await upstream.get(caller(), READ, { id: 'c1' });
    await upstream.get(caller(), READ, { id: 'c2' });
    await upstream.post(caller(), WRITE, { company: 'c1' });
    await upstream.get(caller(), READ, { id: 'c1' });
    await upstream.get(caller(), READ, { id: 'c2' });
    expect(sent).toEqual(['/factory/counter/c1', '/factory/counter/c2', 'POST', '/factory/counter/c1']);
    expect(told).toEqual([['hashed-a', 'c1']]);
    expect(upstream.generation('hashed-a')).toBe(1);
    expect(upstream.scopeKeys('hashed-a', 'c1')).toEqual([
      'hashed-a|/factory/counter/c1',
      'hashed-a|/factory/inventory/c1',
    ]);
  });

  it('moves the generation, forgetting nothing, when the write names no scope', async () => {
    const upstream = economy(COUNTER_RULES);
    await upstream.get(caller(), READ, { id: 'c1' });
    await upstream.post(caller(), WRITE, { other: 'c1' });
    await upstream.get(caller(), READ, { id: 'c1' });
    expect(sent).toEqual(['/factory/counter/c1', 'POST']);
    expect(upstream.generation('hashed-a')).toBe(1);
  });

  it('caches a write-through answer and keeps the rest of the scope this process held', async () => {
    const upstream = economy(COUNTER_RULES);
    await upstream.get(caller(), ENDPOINTS.factoryInventory, { id: 'c1' });
    await upstream.post(
      caller(),
      WRITE,
      { company: 'c1' },
      { endpoint: READ, params: { id: 'c1' }, body: { written: true } },
    );
    const counter = await upstream.get(caller(), READ, { id: 'c1' });
    const inventory = await upstream.get(caller(), ENDPOINTS.factoryInventory, { id: 'c1' });
    expect(sent).toEqual(['/factory/inventory/c1', 'POST']);
    expect(counter.body).toEqual({ written: true });
    expect(inventory.body).toEqual({ read: 1 });
  });

  it('refuses two rules for one endpoint', () => {
    expect(() => economy([...COUNTER_RULES, { endpoint: READ }])).toThrow('registered twice');
  });
});
