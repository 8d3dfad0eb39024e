/**
 * Resolver tests of `Mutation.updateFactoryOption`: the message, the secret from the
 * input or the `X-Api-Secret` header, the exact upstream body, the read-back of
 * `option` only when selected, and the mutation's errors. The gateway talks to the
 * simulator through a MockAgent overlay whose call history keeps every request's
 * method, path, headers and body, so the POST body can be checked byte for byte.
 */
import {
  FactoryOptionsDocument,
  UpdateFactoryOptionDocument,
  UpdateFactoryOptionInlineLongTitleDocument,
  UpdateFactoryOptionInlineSlot11Document,
  UpdateFactoryOptionMessageOnlyDocument,
} from '../generated/graphql';
import type { UpdateFactoryOptionInput } from '../generated/graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { useStack } from '../support';
import type { Result } from '../support';
import { calls, company, expectedOption, freshKey, must, onlyError } from './expected';

const stack = useStack({ mock: true });

beforeEach(() => {
  // Undo the writes of the previous test and clear both logs.
  stack.simulator.reset();
  stack.mockAgent?.clearCallHistory();
});

/** The JSON bodies of the POSTs the gateway sent. */
function postedBodies(): unknown[] {
  return stack
    .upstreamCalls()
    .filter((call) => call.method === 'POST')
    .map((call) => JSON.parse(String(call.body)) as unknown);
}

function expectNoUpstreamRequest(): void {
  expect(stack.simulator.requests).toEqual([]);
  expect(stack.upstreamCalls()).toEqual([]);
}

describe('updateFactoryOption: success', () => {
  it('answers the upstream message, writes the slot and reads it back when option is selected', async () => {
    const { key, secret } = freshKey();
    const input: UpdateFactoryOptionInput = {
      factoryId: FIXTURE_IDS.shop,
      slot: 3,
      title: 'Neue Preise',
      data: '{"Wasser":4.2}',
      apiSecret: secret,
    };
    const result = await stack.execute(UpdateFactoryOptionDocument, { input }, { key });
    expect(result.errors).toBeUndefined();
    const payload = must(result.data?.updateFactoryOption);
    // The simulator answers the JSON string "option was updated": the message comes without quotes.
    expect(payload.message).toBe('option was updated');
    expect(payload.option).toEqual({
      slot: 3,
      title: 'Neue Preise',
      data: '{"Wasser":4.2}',
      lastUpdated: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(must(payload.option?.lastUpdated)))).toBe(false);
    // One POST and one read of the written slot.
    expect(calls(stack.simulator)).toEqual(['POST /factory/options', `GET /factory/options/${FIXTURE_IDS.shop}/3`]);
  });

  it("sends exactly {apiSecret, factoryId, option, title, data} as the JSON body, with the caller's bearer key", async () => {
    const { key, secret } = freshKey();
    const input: UpdateFactoryOptionInput = {
      factoryId: FIXTURE_IDS.workshop,
      slot: 4,
      title: 'Öffnungszeiten',
      data: 'Mo–Fr 8–18 Uhr "geschlossen" am So',
      apiSecret: secret,
    };
    const result = await stack.execute(UpdateFactoryOptionMessageOnlyDocument, { input }, { key });
    expect(result.errors).toBeUndefined();
    expect(postedBodies()).toEqual([
      { apiSecret: secret, factoryId: FIXTURE_IDS.workshop, option: 4, title: input.title, data: input.data },
    ]);
    const post = must(stack.upstreamCalls().find((call) => call.method === 'POST'));
    expect(Object.keys(JSON.parse(String(post.body)) as Record<string, unknown>).sort()).toEqual([
      'apiSecret',
      'data',
      'factoryId',
      'option',
      'title',
    ]);
    expect(post.path).toBe('/req/factory/options');
    const headers = new Headers(post.headers as Record<string, string>);
    expect(headers.get('authorization')).toBe(`Bearer ${key}`);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('makes exactly one upstream request, the POST, when option is not selected', async () => {
    const { key, secret } = freshKey();
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 't', data: 'd', apiSecret: secret } },
      { key },
    );
    expect(result.data).toEqual({ updateFactoryOption: { message: 'option was updated' } });
    expect(stack.simulator.requests).toHaveLength(1);
    expect(stack.simulator.requests[0]).toMatchObject({ method: 'POST', route: 'POST /factory/options', status: 200 });
  });

  it('stores what was sent: a later read (other key, same character) sees the new title and data in the slot', async () => {
    const writer = freshKey();
    const input: UpdateFactoryOptionInput = {
      factoryId: FIXTURE_IDS.farm,
      slot: 7,
      title: 'Ernte',
      data: 'Weizen ab Juli',
      apiSecret: writer.secret,
    };
    await stack.execute(UpdateFactoryOptionMessageOnlyDocument, { input }, { key: writer.key });
    const read = await stack.execute(
      FactoryOptionsDocument,
      { id: FIXTURE_IDS.farm, slot: 7 },
      { key: freshKey().key },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.factory?.option).toMatchObject({ slot: 7, title: 'Ernte', data: 'Weizen ab Juli' });
    expect(read.data?.factory?.options).toEqual([{ slot: 7, title: 'Ernte' }]);
  });

  it('takes the secret from the X-Api-Secret header when the input has none', async () => {
    const { key, secret } = freshKey();
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 2, title: 'Header', data: 'secret from header' } },
      { key, headers: { 'X-Api-Secret': secret } },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.updateFactoryOption.message).toBe('option was updated');
    expect(postedBodies()).toEqual([
      { apiSecret: secret, factoryId: FIXTURE_IDS.shop, option: 2, title: 'Header', data: 'secret from header' },
    ]);
  });

  it('accepts the bounds themselves: slot 10, a 64-character title and 2400 characters of data', async () => {
    const { key, secret } = freshKey();
    const title = 'T'.repeat(64);
    const data = 'd'.repeat(2400);
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId: FIXTURE_IDS.carDealer, slot: 10, title, data, apiSecret: secret } },
      { key },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.updateFactoryOption.option).toMatchObject({ slot: 10, title, data });
  });

  it('shows the new value in option even when the slot was read (and possibly cached) before the write', async () => {
    const { key, secret } = freshKey();
    const shop = company(FIXTURE_IDS.shop);
    const before = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(before.data?.factory?.option).toEqual(expectedOption(1, shop.options['1']));
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'Geändert', data: 'neu', apiSecret: secret } },
      { key },
    );
    expect(result.data?.updateFactoryOption.option).toMatchObject({ slot: 1, title: 'Geändert', data: 'neu' });
    const after = await stack.execute(FactoryOptionsDocument, { id: FIXTURE_IDS.shop, slot: 1 }, { key });
    expect(after.data?.factory?.option).toMatchObject({ slot: 1, title: 'Geändert', data: 'neu' });
    expect(after.data?.factory?.options?.find((o) => o.slot === 1)).toEqual({ slot: 1, title: 'Geändert' });
  });
});

describe('updateFactoryOption: errors', () => {
  it('wrong secret: FORBIDDEN with upstream and requiredScopes, no premium flag, nothing stored, no secret echoed', async () => {
    const { key } = freshKey();
    const wrong = 'wrong-secret-4f8e2a';
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y', apiSecret: wrong } },
      { key },
    );
    expect(result.data).toBeNull();
    const error = onlyError(result);
    expect(error.path).toEqual(['updateFactoryOption']);
    expect(error.extensions).toEqual({
      code: 'FORBIDDEN',
      upstream: { status: 401, endpoint: 'POST /factory/options', message: 'Invalid api secret' },
      requiredScopes: ['factory', 'factory.options.edit'],
    });
    expect(JSON.stringify(result)).not.toContain(wrong);
    expect(JSON.stringify(result)).not.toContain(key);
    // Nothing was written and option was not read after the failed write.
    expect(calls(stack.simulator)).toEqual(['POST /factory/options']);
    const read = await stack.execute(
      FactoryOptionsDocument,
      { id: FIXTURE_IDS.shop, slot: 1 },
      { key: freshKey().key },
    );
    expect(read.data?.factory?.option).toEqual(expectedOption(1, company(FIXTURE_IDS.shop).options['1']));
  });

  it('secret from the header, but wrong: FORBIDDEN', async () => {
    const { key } = freshKey();
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y' } },
      { key, headers: { 'x-api-secret': 'not-the-secret' } },
    );
    expect(onlyError(result).extensions?.code).toBe('FORBIDDEN');
  });

  it.each([
    ['an unknown company', 'ffffffffffffffffffffffff'],
    ['a company of the other character', FIXTURE_IDS.otherFactory],
  ])('%s: NOT_FOUND with upstream {status 404, endpoint, message}', async (_name, factoryId) => {
    const { key, secret } = freshKey();
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId, slot: 1, title: 'x', data: 'y', apiSecret: secret } },
      { key },
    );
    expect(result.data).toBeNull();
    const error = onlyError(result);
    expect(error.path).toEqual(['updateFactoryOption']);
    expect(error.extensions).toEqual({
      code: 'NOT_FOUND',
      upstream: { status: 404, endpoint: 'POST /factory/options', message: 'Factory not found' },
    });
  });

  it('a key without factory.options.edit: UPSTREAM_BAD_REQUEST with the scopes the write needs', async () => {
    const result = await stack.execute(
      UpdateFactoryOptionMessageOnlyDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y', apiSecret: DEMO_KEYS.basic.secret } },
      { key: DEMO_KEYS.basic.key },
    );
    expect(result.data).toBeNull();
    expect(onlyError(result).extensions).toEqual({
      code: 'UPSTREAM_BAD_REQUEST',
      upstream: { status: 400, endpoint: 'POST /factory/options', message: 'Missing scope: factory.options.edit' },
      requiredScopes: ['factory', 'factory.options.edit'],
    });
  });

  it('no bearer key: UNAUTHENTICATED and no upstream request', async () => {
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y', apiSecret: 'whatever' } },
      { key: null },
    );
    expect(result.data).toBeNull();
    const error = onlyError(result);
    expect(error.path).toEqual(['updateFactoryOption']);
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expectNoUpstreamRequest();
  });

  it.each([
    ['no apiSecret and no header', {}],
    ['an empty header', { 'x-api-secret': '' }],
    ['a blank header', { 'x-api-secret': '   ' }],
  ])('missing secret (%s): BAD_USER_INPUT and no upstream request', async (_name, headers: Record<string, string>) => {
    const { key } = freshKey();
    const result = await stack.execute(
      UpdateFactoryOptionDocument,
      { input: { factoryId: FIXTURE_IDS.shop, slot: 1, title: 'x', data: 'y' } },
      { key, headers },
    );
    expect(result.data).toBeNull();
    const error = onlyError(result);
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.path).toEqual(['updateFactoryOption']);
    expectNoUpstreamRequest();
  });

  describe('bounds (BAD_USER_INPUT before any upstream request)', () => {
    function expectBadInput(result: Result<unknown>, argument: string): void {
      expect(result.data ?? null).toBeNull();
      const error = onlyError(result);
      expect(error.extensions?.code).toBe('BAD_USER_INPUT');
      expect(String(error.extensions?.argument)).toContain(argument);
      expectNoUpstreamRequest();
    }

    it.each([
      ['slot 11', { slot: 11 }, 'slot'],
      ['slot 0', { slot: 0 }, 'slot'],
      ['slot -3', { slot: -3 }, 'slot'],
      ['a 65-character title', { title: 'x'.repeat(65) }, 'title'],
      ['2401 characters of data', { data: 'd'.repeat(2401) }, 'data'],
    ])('%s in variables', async (_name, change: Partial<UpdateFactoryOptionInput>, argument) => {
      const { key, secret } = freshKey();
      const input: UpdateFactoryOptionInput = {
        factoryId: FIXTURE_IDS.shop,
        slot: 1,
        title: 't',
        data: 'd',
        apiSecret: secret,
        ...change,
      };
      expectBadInput(await stack.execute(UpdateFactoryOptionDocument, { input }, { key }), argument);
    });

    it('slot 11 inline', async () => {
      expectBadInput(
        await stack.execute(UpdateFactoryOptionInlineSlot11Document, { id: FIXTURE_IDS.shop }, { key: freshKey().key }),
        'slot',
      );
    });

    it('a 65-character title inline', async () => {
      expectBadInput(
        await stack.execute(
          UpdateFactoryOptionInlineLongTitleDocument,
          { id: FIXTURE_IDS.shop },
          { key: freshKey().key },
        ),
        'title',
      );
    });
  });
});
