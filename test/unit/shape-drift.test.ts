/**
 * The tolerant reader: every shape the community clients saw that
 * differs from the reference is accepted, each drift is noted once per response, and
 * `mapResponse` reports it to the shape-drift listeners (metrics and the log).
 */
import { mapTransactionPage, mapBankAccountFields } from '../../src/domains/shared/bank-account.mapper';
import { collectDrift, JsonObject, mapResponse } from '../../src/domains/shared/narrow';
import { onShapeDrift } from '../../src/domains/shared/shape-drift';
import { mapFactoryList, mapInventory, mapOption, mapProductions } from '../../src/domains/factories/factory.mapper';
import {
  mapBuyOffers,
  mapMyExportAuctions,
  mapMyImportAuctions,
  mapSellOffers,
} from '../../src/domains/market/market.mapper';
import { mapRooms } from '../../src/domains/buildings/building.mapper';
import { ENDPOINTS } from '../../src/upstream/endpoints';

const END = '2026-12-01T12:00:00.000Z';

describe('tolerant reader: the drifts community clients report', () => {
  it('productions with item instead of itemName', () => {
    const { value, drift } = collectDrift(() =>
      mapProductions([{ item: 'Brot', icon: null, neededItems: [{ name: 'Mehl', amount: 2 }] }]),
    );
    expect(value).toEqual([{ itemName: 'Brot', icon: null, neededItems: [{ name: 'Mehl', amount: 2 }] }]);
    expect(drift).toEqual(['itemName']);
  });

  it('"my" import and export auctions without id get a stable id derived from their content', () => {
    const importAuction = { item: 'Holz', bidAmount: 10, isLastBidderMe: true, auctionEnd: END, icon: null };
    const first = collectDrift(() => mapMyImportAuctions([importAuction]));
    // Another bid changes bidAmount and isLastBidderMe, never the id.
    const again = mapMyImportAuctions([{ ...importAuction, bidAmount: 99, isLastBidderMe: false }]);
    expect(first.value[0]?.id).toMatch(/^derived-[0-9a-f]{24}$/);
    expect(again[0]?.id).toBe(first.value[0]?.id);
    expect(mapMyImportAuctions([{ ...importAuction, item: 'Stein' }])[0]?.id).not.toBe(first.value[0]?.id);
    expect(first.drift).toEqual(['id']);

    const exportAuction = {
      item: 'Holz',
      bidAmount: 10,
      isLastBidderMe: true,
      auctionEnd: END,
      amount: 5,
      singleWeight: 1,
      totalWeight: 5,
      icon: null,
      duration: 3,
    };
    const exported = collectDrift(() => mapMyExportAuctions([exportAuction]));
    expect(exported.value[0]?.id).toMatch(/^derived-/);
    // An import and an export auction of the same item and end are different records.
    expect(exported.value[0]?.id).not.toBe(first.value[0]?.id);
    expect(exported.drift).toEqual(['id']);
    // With an id, the upstream's id is kept and nothing drifts.
    expect(collectDrift(() => mapMyImportAuctions([{ ...importAuction, id: 'a1' }]))).toEqual({
      value: [expect.objectContaining({ id: 'a1' })],
      drift: [],
    });
  });

  const offer = { item: 'Brot', pricePerUnit: 2, totalPrice: 20, availableAmount: 10, createdAt: END, icon: null };

  it('listPrice missing on buy offers: null', () => {
    const { value, drift } = collectDrift(() => mapBuyOffers([offer]));
    expect(value[0]?.listPrice).toBeNull();
    expect(drift).toEqual(['listPrice']);
    expect(collectDrift(() => mapBuyOffers([{ ...offer, listPrice: 3 }]))).toEqual({
      value: [{ ...offer, createdAt: new Date(END), listPrice: 3 }],
      drift: [],
    });
  });

  it('listPrice present on sell offers: ignored, counted', () => {
    const { value, drift } = collectDrift(() => mapSellOffers([{ ...offer, listPrice: 3 }]));
    expect(value).toEqual([{ ...offer, createdAt: new Date(END) }]);
    expect(drift).toEqual(['listPrice']);
  });

  it('option slots with a null title: "" (the contract keeps title non-null)', () => {
    const { value, drift } = collectDrift(() => mapOption({ title: null, data: 'd', lastUpdated: END }, 4));
    expect(value).toEqual({ slot: 4, title: '', data: 'd', lastUpdated: new Date(END) });
    expect(drift).toEqual(['title']);
  });

  it('option slots cleared with "." as title and data read as unset (null)', () => {
    const { value, drift } = collectDrift(() => mapOption({ title: '.', data: '.', lastUpdated: END }, 2));
    expect(value).toBeNull();
    expect(drift).toEqual(['cleared']);
    // A single "." is real content.
    expect(mapOption({ title: '.', data: 'x' }, 2)).toEqual({ slot: 2, title: '.', data: 'x', lastUpdated: null });
  });

  it('lastUpdate instead of lastUpdated', () => {
    const { value, drift } = collectDrift(() => mapOption({ title: 't', data: 'd', lastUpdate: END }, 1));
    expect(value?.lastUpdated).toEqual(new Date(END));
    expect(drift).toEqual(['lastUpdated']);
    expect(collectDrift(() => mapOption({ title: 't', data: 'd', lastUpdated: END }, 1)).drift).toEqual([]);
  });

  it('transactions with reference "": null', () => {
    const { value, drift } = collectDrift(() =>
      mapTransactionPage({
        totalTransactions: 1,
        transactions: [{ senderVban: 'A', receiverVban: 'B', reference: '', amount: 1, timestamp: END }],
      }),
    );
    expect(value.transactions[0]?.reference).toBeNull();
    expect(drift).toEqual(['transactions.reference']);
  });

  it('isOpen: null in the company list (documented as nullable: no drift)', () => {
    const { value, drift } = collectDrift(() => mapFactoryList([{ id: 'f1', name: 'Bäckerei', isOpen: null }]));
    expect(value[0]?.isOpen).toBeNull();
    expect(drift).toEqual([]);
  });

  it('VBANs as numbers: their decimal text', () => {
    const account = collectDrift(() =>
      mapBankAccountFields(JsonObject.of({ id: 'b1', vban: 409856, balance: 1, note: null })),
    );
    expect(account.value.vban).toBe('409856');
    expect(account.drift).toEqual(['vban']);
    const page = collectDrift(() =>
      mapTransactionPage({
        totalTransactions: 1,
        transactions: [{ senderVban: 409856, receiverVban: 12, reference: 'r', amount: 1, timestamp: END }],
      }),
    );
    expect(page.value.transactions[0]).toMatchObject({ senderVban: '409856', receiverVban: '12' });
    expect(page.drift.sort()).toEqual(['transactions.receiverVban', 'transactions.senderVban']);
  });
});

describe('tolerant reader: the general rules', () => {
  it('a missing or mistyped non-identifying field nulls that field or takes its documented default; the rest stays', () => {
    const { value, drift } = collectDrift(() =>
      mapInventory({
        totalWeight: '12.5',
        items: [{ item: 'Brot', amount: 'viele', singleWeight: 1, totalWeight: 1, icon: 42 }],
      }),
    );
    expect(value).toEqual({
      totalWeight: 12.5,
      items: [{ item: 'Brot', amount: 0, singleWeight: 1, totalWeight: 1, icon: '42' }],
    });
    expect(drift.sort()).toEqual(['items.amount', 'items.icon', 'totalWeight']);
    const rooms = collectDrift(() =>
      mapRooms(
        [{ id: 'r1', hash: 'h', name: 'Flat', rent: 1, occupied: 'yes', interior: 'x', interiorImage: null }],
        'b1',
      ),
    );
    expect(rooms.value[0]).toMatchObject({
      occupied: false,
      interiorDetails: { inventoryCapacity: 0, kitchenCapacity: 0, wardrobeCapacity: 0 },
    });
    expect(rooms.drift.sort()).toEqual([
      'interiorDetails',
      'interiorDetails.inventoryCapacity',
      'interiorDetails.kitchenCapacity',
      'interiorDetails.wardrobeCapacity',
      'occupied',
    ]);
  });

  it('unknown extra fields are ignored without drift', () => {
    expect(collectDrift(() => mapFactoryList([{ id: 'f1', name: 'A', brandNew: { deep: true } }]))).toEqual({
      value: [{ id: 'f1', name: 'A', hash: null, adLine: null, isOpen: null, type: null, address: null }],
      drift: [],
    });
  });

  it('a record without its identifying field is still an error (nothing can stand in for an id)', () => {
    expect(() => mapResponse(ENDPOINTS.factoryList, [{ name: 'A' }], mapFactoryList)).toThrow(
      /\[0\]\.id should be a string/,
    );
  });

  it('a shape error never quotes upstream text (it may echo a key)', () => {
    expect(() => mapResponse(ENDPOINTS.factoryList, ['Bearer secret-key-123456'], mapFactoryList)).toThrow(
      /\[0\] should be an object, got a string of 24 characters/,
    );
    expect(() => mapResponse(ENDPOINTS.factoryList, ['Bearer secret-key-123456'], mapFactoryList)).not.toThrow(
      /secret/,
    );
  });

  it('mapResponse reports each drifted field once per response to the listeners, with the endpoint pattern', () => {
    const seen: string[] = [];
    const stop = onShapeDrift((endpoint, field) => seen.push(`${endpoint} ${field}`));
    try {
      mapResponse(
        ENDPOINTS.factoryProductions,
        [
          { item: 'A', neededItems: [] },
          { item: 'B', neededItems: [] },
        ],
        mapProductions,
      );
    } finally {
      stop();
    }
    expect(seen).toEqual(['GET /factory/productions/{id} itemName']);
  });
});

describe('the shape-drift log', () => {
  it('warns once per endpoint and field, and logs a known variant of the reference (lastUpdate) at info only', async () => {
    const { shapeDriftPlugin } = await import('../../src/observability/shape-drift.plugin');
    const { GatewayMetrics } = await import('../../src/observability/metrics');
    const { emitShapeDrift } = await import('../../src/domains/shared/shape-drift');
    const lines: Array<[string, string]> = [];
    const logger = {
      warn: (_fields: unknown, msg: string) => lines.push(['warn', msg]),
      info: (_fields: unknown, msg: string) => lines.push(['info', msg]),
    };
    const plugin = shapeDriftPlugin(new GatewayMetrics({ defaultMetrics: false }), logger as never);
    const listener = await plugin.serverWillStart?.({} as never);
    emitShapeDrift('GET /factory/options/{id}/{slot}', 'lastUpdated');
    emitShapeDrift('GET /factory/options/{id}/{slot}', 'lastUpdated');
    emitShapeDrift('GET /factory/production/{id}', 'itemName');
    await listener?.serverWillStop?.();
    expect(lines.map(([level]) => level)).toEqual(['info', 'warn']);
    expect(lines[0]?.[1]).toContain('known variant');
  });
});
