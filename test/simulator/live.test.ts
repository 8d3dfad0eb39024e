/** The simulator's data changes: one at a time (in process and over POST /__sim/change) and live mode. */
import {
  applyChange,
  ChangeError,
  createFixtureState,
  DEMO_KEYS,
  FIXTURE_IDS,
  startSimulator,
} from '../../src/simulator';
import { randomChange } from '../../src/simulator/live';
import { parseCliArgs } from '../../src/simulator/main';

describe('simulator changes', () => {
  it('keeps the data rules: stock never below 0, bids only rise, rooms occupied exactly with a tenant, bookings move the balance', () => {
    const state = createFixtureState();
    const shop = state.characters[0]?.companies.find((each) => each.id === FIXTURE_IDS.shop);
    const water = shop?.inventory[0];
    if (!shop || !water) throw new Error('fixture');
    expect(() =>
      applyChange(state, { kind: 'stock', factoryId: shop.id, item: water.item, delta: -(water.amount + 1) }, 0),
    ).toThrow(ChangeError);
    applyChange(state, { kind: 'stock', factoryId: shop.id, item: water.item, delta: -water.amount }, 0);
    expect(shop.inventory.some((each) => each.item === water.item)).toBe(false);

    const auction = state.characters[0]?.auctions.myImport[0];
    if (!auction) throw new Error('fixture');
    expect(() =>
      applyChange(
        state,
        { kind: 'bid', auctionId: auction.id, bidAmount: auction.bidAmount - 1, isLastBidderMe: true },
        0,
      ),
    ).toThrow(ChangeError);

    const account = shop.bankAccounts[0];
    if (!account) throw new Error('fixture');
    const balance = account.balance;
    applyChange(
      state,
      { kind: 'transaction', bankAccountId: account.id, amount: -25.5, reference: 'Einkauf' },
      Date.UTC(2026, 0, 1),
    );
    expect(account.balance).toBe(balance - 25.5);
    expect(account.transactions[0]).toMatchObject({
      amount: 25.5,
      senderVban: String(account.vban),
      reference: 'Einkauf',
      timestamp: '2026-01-01T00:00:00.000Z',
    });

    const room = state.characters[0]?.buildings[0]?.rooms[0];
    if (!room) throw new Error('fixture');
    applyChange(state, { kind: 'room', roomId: room.id, tenant: null, rent: 999 }, 0);
    expect(room).toMatchObject({ tenant: null, rent: 999 });
  });

  it('draws live changes that always apply', () => {
    const state = createFixtureState();
    let seed = 7;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    let applied = 0;
    for (let i = 0; i < 200; i += 1) {
      const change = randomChange(state, random);
      if (!change) continue;
      try {
        applyChange(state, change, Date.UTC(2026, 0, 1));
        applied += 1;
      } catch (error) {
        expect(error).toBeInstanceOf(ChangeError);
      }
    }
    expect(applied).toBeGreaterThan(150);
  });

  it('applies a change over POST /__sim/change and refuses a bad one with 400', async () => {
    const simulator = await startSimulator();
    try {
      const post = (body: unknown): Promise<Response> =>
        fetch(`${simulator.origin}/__sim/change`, { method: 'POST', body: JSON.stringify(body) });
      expect((await post({ kind: 'counter', factoryId: FIXTURE_IDS.shop, item: 'Wasser', amount: 42 })).status).toBe(
        200,
      );
      const counter = (await (
        await fetch(`${simulator.baseUrl}/factory/counter/${FIXTURE_IDS.shop}`, {
          headers: { authorization: `Bearer ${DEMO_KEYS.premium.key}` },
        })
      ).json()) as { items: Array<{ item: string; amount: number }> };
      expect(counter.items.find((each) => each.item === 'Wasser')?.amount).toBe(42);
      const refused = await post({ kind: 'stock', factoryId: 'nope', item: 'Wasser', delta: 1 });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { message: string }).message).toMatch(/no company/);
    } finally {
      await simulator.close();
    }
  });

  it('reads --live and --live-interval', () => {
    expect(parseCliArgs(['--live'])).toEqual({ live: true });
    expect(parseCliArgs(['--live', '--live-interval', '500'])).toEqual({ live: { intervalMs: 500 } });
    expect(() => parseCliArgs(['--live-interval', '500'])).toThrow(/needs --live/);
  });
});
