import {
  mapFactoryBankAccounts,
  mapFactoryList,
  mapInventory,
  mapOption,
  mapUpdateMessage,
  mapVehicles,
} from '../../src/domains/factories/factory.mapper';
import { mapBuildingBankAccounts, mapRooms, mapTenants } from '../../src/domains/buildings/building.mapper';
import { mapTransactionPage } from '../../src/domains/shared/bank-account.mapper';
import { mapMyExportAuctions } from '../../src/domains/market/market.mapper';
import { mapResponse, ShapeError } from '../../src/domains/shared/narrow';
import { isEmptyStoreError } from '../../src/domains/shared/upstream-errors';
import { UpstreamError } from '../../src/errors/gateway-error';
import { ENDPOINTS } from '../../src/upstream/endpoints';

describe('mappers: the upstream quirks', () => {
  it('turns a VBAN that arrives as a number into a string (company and building accounts)', () => {
    const [numeric, text] = mapFactoryBankAccounts([
      { id: 'a1', vban: 4711001, balance: 10.5, note: null },
      { id: 'a2', vban: 'DE-4711002', balance: 0, note: 'Kasse' },
    ]);
    expect(numeric?.vban).toBe('4711001');
    expect(typeof numeric?.vban).toBe('string');
    expect(text?.vban).toBe('DE-4711002');
    expect(text?.note).toBe('Kasse');
    expect(mapBuildingBankAccounts([{ id: 'b1', vban: 99, balance: 1, note: null, main: true }])[0]).toEqual({
      id: 'b1',
      vban: '99',
      balance: 1,
      note: null,
      main: true,
    });
  });

  it('turns numeric VBANs in transactions into strings and keeps null senders', () => {
    const page = mapTransactionPage({
      totalTransactions: 2,
      transactions: [
        { senderVban: 123, receiverVban: 'X', reference: null, amount: -5, timestamp: '2026-11-01T10:00:00.000Z' },
      ],
    });
    expect(page.transactions[0]).toEqual({
      senderVban: '123',
      receiverVban: 'X',
      reference: null,
      amount: -5,
      timestamp: new Date('2026-11-01T10:00:00.000Z'),
    });
    expect(
      mapTransactionPage({
        totalTransactions: 0,
        transactions: [
          { senderVban: null, receiverVban: null, reference: 'r', amount: 1, timestamp: '2026-11-01T10:00:00Z' },
        ],
      }).transactions[0]?.senderVban,
    ).toBeNull();
  });

  it('fills lastUpdated from an option record that says lastUpdate', () => {
    expect(mapOption({ title: 'Öffnungszeiten', data: 'Mo-Fr', lastUpdate: '2026-10-01T08:00:00.000Z' }, 2)).toEqual({
      slot: 2,
      title: 'Öffnungszeiten',
      data: 'Mo-Fr',
      lastUpdated: new Date('2026-10-01T08:00:00.000Z'),
    });
    expect(mapOption({ title: 't', data: 'd', lastUpdated: '2026-10-02T08:00:00.000Z' }, 1)?.lastUpdated).toEqual(
      new Date('2026-10-02T08:00:00.000Z'),
    );
    expect(mapOption({ title: 't', data: 'd' }, 3)?.lastUpdated).toBeNull();
  });

  it('reads the option edit message as plain text or as a JSON string, without quotes', () => {
    expect(mapUpdateMessage('option was updated')).toBe('option was updated');
    expect(mapUpdateMessage('"option was updated"')).toBe('option was updated');
    expect(mapUpdateMessage({ message: 'option was updated' })).toBe('option was updated');
    expect(() => mapUpdateMessage(42)).toThrow(ShapeError);
  });

  it('recognises the 404 that means an empty store or counter, and only that one', () => {
    const empty = new UpstreamError('NOT_FOUND', ENDPOINTS.factoryCounter, {
      status: 404,
      endpoint: ENDPOINTS.factoryCounter.route,
      message: 'Counter is empty',
    });
    const emptyStore = new UpstreamError('NOT_FOUND', ENDPOINTS.factoryInventory, {
      status: 404,
      endpoint: ENDPOINTS.factoryInventory.route,
      message: 'Inventory is empty',
    });
    const missing = new UpstreamError('NOT_FOUND', ENDPOINTS.factoryCounter, {
      status: 404,
      endpoint: ENDPOINTS.factoryCounter.route,
      message: 'Factory not found',
    });
    expect(isEmptyStoreError(empty)).toBe(true);
    expect(isEmptyStoreError(emptyStore)).toBe(true);
    expect(isEmptyStoreError(missing)).toBe(false);
    expect(isEmptyStoreError({ code: 'UPSTREAM_BAD_REQUEST', upstream: { message: 'Counter is empty' } })).toBe(false);
  });

  it('leaves factory.details fields null when the list comes without them', () => {
    expect(mapFactoryList([{ id: 'f1', name: 'Laden', hash: 'h' }])).toEqual([
      { id: 'f1', name: 'Laden', hash: 'h', adLine: null, isOpen: null, type: null, address: null },
    ]);
  });

  it('keeps the building id on rooms and tenants for the joins', () => {
    const [room] = mapRooms(
      [
        {
          id: 'r1',
          hash: 'h',
          name: 'Wohnung 1',
          rent: 500,
          occupied: true,
          interior: 'modern',
          interiorImage: null,
          interiorDetails: { inventoryCapacity: 100, kitchenCapacity: 20, wardrobeCapacity: 30 },
        },
      ],
      'b1',
    );
    expect(room?.buildingId).toBe('b1');
    const [tenant] = mapTenants([{ roomId: 'r1', roomHash: 'h', roomName: 'Wohnung 1', tenantName: 'Erika' }], 'b1');
    expect(tenant).toEqual({
      roomId: 'r1',
      roomHash: 'h',
      roomName: 'Wohnung 1',
      tenantName: 'Erika',
      lastPayDate: null,
      buildingId: 'b1',
    });
  });

  it('maps vehicles and auctions with their optional fields', () => {
    expect(
      mapVehicles([{ name: 'Sultan', image: null, numberPlate: 'SV-123', distance: 12034, engine: 'V6' }])[0]?.distance,
    ).toBe(12034);
    expect(
      mapMyExportAuctions([
        {
          id: 'x',
          item: 'Holz',
          bidAmount: 1,
          isLastBidderMe: false,
          auctionEnd: '2026-11-30T12:00:00Z',
          amount: 2,
          singleWeight: 1,
          totalWeight: 2,
          icon: null,
          duration: null,
        },
      ])[0]?.duration,
    ).toBeNull();
  });
});

describe('mapResponse: a body of the wrong shape', () => {
  it('becomes UPSTREAM_ERROR naming the endpoint and the bad path', () => {
    let caught: unknown;
    try {
      mapResponse(ENDPOINTS.factoryInventory, { totalWeight: 1, items: ['Brot'] }, mapInventory);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    const error = caught as UpstreamError;
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.extensions.upstream).toEqual({
      status: 200,
      endpoint: 'GET /factory/inventory/{id}',
      message: expect.stringContaining('items[0] should be an object') as unknown,
    });
  });

  it('rejects a non-array list and a record without its id', () => {
    expect(() => mapFactoryList({ id: 'x' })).toThrow(/should be an array/);
    expect(() => mapFactoryList([{ name: 'x' }])).toThrow(/\[0\]\.id should be a string/);
  });
});
