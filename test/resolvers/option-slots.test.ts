/**
 * `Factory.options` fans out into one upstream request per slot: it
 * returns the slots it has, reports each failed slot as its own error with its own
 * path, leaves unset slots out, and reads `OPTION_SLOTS` slots.
 *
 * The simulator answers over real HTTP; a MockAgent overlay scripts the failing slots.
 */
import { loadConfig } from '../../src/config';
import { FIXTURE_IDS } from '../../src/simulator';
import { startStack } from '../support';
import type { Stack } from '../support';

const QUERY = `query Slots($id: ID!) { factory(id: $id) { id options { slot title } } }`;
const shop = FIXTURE_IDS.shop;
const JSON_HEADERS = { headers: { 'content-type': 'application/json' } };

describe('Factory.options: per-slot errors', () => {
  let stack: Stack;
  afterEach(async () => {
    stack.mockAgent?.assertNoPendingInterceptors();
    await stack.close();
  });

  it('keeps the slots it has and reports each failed slot with its own path and code', async () => {
    stack = await startStack({ mock: true });
    const upstream = stack.upstream();
    upstream
      .intercept({ path: `/req/factory/options/${shop}/2`, method: 'GET' })
      .reply(500, { statusCode: 500, message: 'boom' }, JSON_HEADERS);
    upstream
      .intercept({ path: `/req/factory/options/${shop}/7`, method: 'GET' })
      .reply(400, { statusCode: 400, message: 'nope' }, JSON_HEADERS);

    const result = await stack.executeText(QUERY, { id: shop });
    const factory = result.data?.factory as { options: Array<{ slot: number; title: string }> | null };
    // Slot 1 is set in the fixtures; slot 2 failed; 3..10 are unset and stay omitted.
    expect(factory.options).toEqual([{ slot: 1, title: expect.any(String) as unknown }]);
    const errors = (result.errors ?? []).map((error) => ({
      path: error.path,
      code: error.extensions?.code,
      slot: error.extensions?.slot,
    }));
    expect(errors).toEqual([
      { path: ['factory', 'options', 1], code: 'UPSTREAM_ERROR', slot: 2 },
      { path: ['factory', 'options', 6], code: 'UPSTREAM_BAD_REQUEST', slot: 7 },
    ]);
    // Formatted like every other gateway error: the upstream detail, no internals.
    expect(result.errors?.[0]?.extensions?.upstream).toMatchObject({
      status: 500,
      endpoint: 'GET /factory/options/{id}/{slot}',
    });
    expect(result.errors?.[0]?.extensions?.http).toBeUndefined();
  });

  it('is null, with one error at the field, only when every slot failed', async () => {
    stack = await startStack({ mock: true, config: { optionSlots: 3 } });
    for (const slot of [1, 2, 3]) {
      stack
        .upstream()
        .intercept({ path: `/req/factory/options/${shop}/${slot}`, method: 'GET' })
        .reply(400, { statusCode: 400, message: 'x' }, JSON_HEADERS);
    }
    const result = await stack.executeText(QUERY, { id: shop });
    expect((result.data?.factory as { options: unknown }).options).toBeNull();
    expect(result.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['factory', 'options'], 'UPSTREAM_BAD_REQUEST'],
    ]);
  });

  it('reads OPTION_SLOTS slots (12 here): slot 11 set, slot 12 unset', async () => {
    stack = await startStack({ mock: true, config: { optionSlots: 12 } });
    const upstream = stack.upstream();
    upstream
      .intercept({ path: `/req/factory/options/${shop}/11`, method: 'GET' })
      .reply(200, { title: 'Elf', data: 'premium', lastUpdated: '2026-11-01T00:00:00.000Z' }, JSON_HEADERS);
    upstream
      .intercept({ path: `/req/factory/options/${shop}/12`, method: 'GET' })
      .reply(404, { statusCode: 404, message: 'Not Found' }, JSON_HEADERS);
    const result = await stack.executeText(QUERY, { id: shop });
    expect(result.errors).toBeUndefined();
    const slots = (result.data?.factory as { options: Array<{ slot: number }> }).options.map((option) => option.slot);
    expect(slots).toEqual([1, 2, 11]);
    expect(stack.attemptsOf('GET /factory/options/{id}/{slot}')).toHaveLength(12);
  });
});

describe('OPTION_SLOTS', () => {
  it('defaults to 10 and accepts 1 to 20 only', () => {
    expect(loadConfig({}).optionSlots).toBe(10);
    expect(loadConfig({ OPTION_SLOTS: '20' }).optionSlots).toBe(20);
    expect(() => loadConfig({ OPTION_SLOTS: '21' })).toThrow(/OPTION_SLOTS/);
    expect(() => loadConfig({ OPTION_SLOTS: '0' })).toThrow(/OPTION_SLOTS/);
  });
});
