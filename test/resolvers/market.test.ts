/**
 * Resolver tests of the four auction lists of `Query`, every field of each auction type,
 * against the built-in simulator.
 */
import { AuctionsDocument } from '../generated/graphql';
import { DEMO_KEYS } from '../../src/simulator';
import { useStack } from '../support';
import {
  NON_PREMIUM_KEY,
  calls,
  errorPaths,
  expectedAuctions,
  fixtureCharacters,
  freshKey,
  must,
  repeatedCalls,
} from './expected';

const stack = useStack({ simulator: { extraKeys: [NON_PREMIUM_KEY] } }, { resetSimulator: true });

describe('Query auction lists (Auctions)', () => {
  it('returns all four lists with every field for the premium key, icons as URLs', async () => {
    const { main } = fixtureCharacters();
    const result = await stack.execute(AuctionsDocument);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(expectedAuctions(main.auctions, true));
    // The fixtures exercise both duration kinds of MyExportAuction and both isLastBidderMe values.
    expect(result.data?.myExportAuctions?.map((a) => a.duration)).toContain(null);
    expect(result.data?.myExportAuctions?.some((a) => typeof a.duration === 'number')).toBe(true);
    expect(new Set(result.data?.myImportAuctions?.map((a) => a.isLastBidderMe))).toEqual(new Set([true, false]));
  });

  it('makes one request per list', async () => {
    const result = await stack.execute(AuctionsDocument, {}, { key: freshKey().key });
    expect(result.errors).toBeUndefined();
    expect(repeatedCalls(stack.simulator)).toEqual([]);
    expect(calls(stack.simulator).sort()).toEqual([
      'GET /market/export',
      'GET /market/import',
      'GET /market/my/auctions/export',
      'GET /market/my/auctions/import',
    ]);
  });

  it("returns the other character's auctions for the other key (an empty list stays an empty list)", async () => {
    const { other } = fixtureCharacters();
    const result = await stack.execute(AuctionsDocument, {}, { key: DEMO_KEYS.other.key });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(expectedAuctions(other.auctions, true));
    expect(result.data?.myExportAuctions).toEqual([]);
  });

  it.each([
    ['basic', DEMO_KEYS.basic.key],
    ['non-premium with every scope', NON_PREMIUM_KEY.key],
  ])(
    'without premium (%s key): my auctions with icons null, the premium-only lists null with FORBIDDEN',
    async (_name, key) => {
      const { main } = fixtureCharacters();
      const result = await stack.execute(AuctionsDocument, {}, { key });
      const expected = expectedAuctions(main.auctions, false);
      const data = must(result.data);
      expect(data.myImportAuctions).toEqual(expected.myImportAuctions);
      expect(data.myExportAuctions).toEqual(expected.myExportAuctions);
      expect(data.myImportAuctions?.every((a) => a.icon === null)).toBe(true);
      expect(data.importAuctions).toBeNull();
      expect(data.exportAuctions).toBeNull();
      expect(errorPaths(result)).toEqual(['exportAuctions', 'importAuctions']);
      expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    },
  );
});
