/**
 * `siteDocumentChanged` over WebSocket: another writer (a tool writing the slots straight
 * into the simulator) commits a version, then another, then deletes it; each poll after the
 * first reads only the committing slot.
 */
import { once } from 'node:events';
import type { Client } from 'graphql-ws';
import type { SlotContent } from '../../src/domains/site-documents/site-document.layout';
import { prepareValue } from '../../src/domains/site-documents/site-document.codec';
import { seedWrites } from '../../src/domains/site-documents/site-document.store';
import { DEMO_KEYS, FIXTURE_IDS, realisticCatalogue } from '../../src/simulator';
import { ManualClock, startStack } from '../support';
import type { HttpStack } from '../support';
import { subscribeWs, wsClient } from '../subscriptions/clients';

const farm = FIXTURE_IDS.farm;
const GET_ROUTE = 'GET /factory/options/{id}/{slot}';

describe('siteDocumentChanged', () => {
  let stack: HttpStack;
  let clock: ManualClock;
  let client: Client;
  /** The farm's slots as the other writer knows them. */
  const contents: Array<SlotContent | null> = [];

  beforeEach(async () => {
    clock = new ManualClock();
    stack = await startStack({ http: true, gateway: { now: clock.now, pollClock: clock } });
    client = wsClient(stack.endpoint, DEMO_KEYS.premium.key);
    contents.splice(0, contents.length, ...Array.from({ length: 10 }, () => null));
  });

  afterEach(async () => {
    await client.dispose();
    await stack.close();
  });

  /** Writes the slots as another tool would: straight into the simulator. */
  function otherWriter(value: unknown): void {
    for (const write of seedWrites(contents, prepareValue('catalogue', value, 'deflate-base64url'), clock.now())) {
      stack.simulator.change({
        kind: 'option',
        factoryId: farm,
        slot: write.slot,
        title: write.title,
        data: write.data,
      });
      contents[write.slot - 1] = { title: write.title, data: write.data, lastUpdated: null };
    }
  }

  async function turn(ms: number): Promise<void> {
    const polled = once(stack.gateway.subscriptions.hub.activity, 'polled');
    clock.advance(ms);
    await polled;
    await stack.gateway.subscriptions.hub.settled();
  }

  it('sends each new version and the deletion, polling only the committing slot once it knows it', async () => {
    const joined = once(stack.gateway.subscriptions.hub.activity, 'joined');
    const events = subscribeWs(
      client,
      `subscription { siteDocumentChanged(factoryId: "${farm}", name: "catalogue") { name previousVersion document { version bytes slots } } }`,
    );
    await joined;

    const v1 = realisticCatalogue(30);
    otherWriter(v1);
    await turn(300_000);
    const first = (await events.next()).data?.siteDocumentChanged as {
      previousVersion: number | null;
      document: { version: number; slots: number[] };
    };
    expect(first).toMatchObject({ name: 'catalogue', previousVersion: null, document: { version: 1 } });

    const v2 = structuredClone(v1);
    v2.items[3]!.price = 99;
    otherWriter(v2);
    const before = stack.attemptsOf(GET_ROUTE).length;
    await turn(300_000);
    expect((await events.next()).data?.siteDocumentChanged).toMatchObject({
      previousVersion: 1,
      document: { version: 2 },
    });
    // One poll, one slot: the committing slot.
    expect(stack.attemptsOf(GET_ROUTE).length - before).toBe(1);

    const deleted = await stack.post(
      { query: `mutation { deleteSiteDocument(input: { factoryId: "${farm}", name: "catalogue" }) { freedSlots } }` },
      { headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
    );
    expect(deleted.body.errors).toBeUndefined();
    await turn(300_000);
    expect((await events.next()).data?.siteDocumentChanged).toMatchObject({ previousVersion: 2, document: null });
  });
});
