import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import {
  CompanyPageDocument,
  FactoryOptionsDocument,
  UpdateFactoryOptionMessageOnlyDocument,
} from '../generated/graphql';
import { advanceClock } from '../support/clock';
import { useStack } from '../support';
import type { HttpAnswer } from '../support';

// A response cache hit of an API key is answered by the HTTP layer before Apollo's pipeline
// (src/web/cached-answers.ts): the same bytes and headers as the hit through Apollo.
const stack = useStack({ http: true, fakeDate: Date.UTC(2026, 0, 5, 12), config: { responseCacheEnabled: true } });
beforeEach(() => {
  stack.simulator.reset();
});

const page = { query: print(CompanyPageDocument), variables: { id: FIXTURE_IDS.shop } };

/** The headers a client sees, without those of the connection and the clock. */
function headersOf(answer: HttpAnswer): Record<string, string> {
  const kept: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) kept[name] = value;
  });
  return kept;
}

/**
 * Runs `post` with the answers before Apollo off (the HTTP layer finds no stored answer): a
 * hit then goes through Apollo's pipeline. (`stack.runtime` is the gateway's copy of the
 * runtime the router holds: the links are shared, a member set on the copy is not.)
 */
async function throughApollo<T>(post: () => Promise<T>): Promise<T> {
  const hits = stack.runtime.responseCacheHits?.hits;
  if (!hits) throw new Error('the response cache is off');
  const find = jest.spyOn(hits, 'find').mockReturnValue(undefined);
  try {
    return await post();
  } finally {
    find.mockRestore();
  }
}

/** The operation-phase steps the pipeline ran while `post` ran (none when the HTTP layer answered). */
async function operationSteps<T>(post: () => Promise<T>): Promise<{ answer: T; steps: string[] }> {
  const steps: string[] = [];
  const stop = stack.runtime.pipeline.observe((step) => {
    if (step === 'operation-shape') steps.push(step);
  });
  try {
    return { answer: await post(), steps };
  } finally {
    stop();
  }
}

it('answers a hit before the pipeline with the same bytes and headers as through Apollo', async () => {
  const key = 'sim-key-9201';
  for (const accept of [undefined, 'application/graphql-response+json', 'application/json']) {
    const headers = accept ? { accept } : undefined;
    await throughApollo(() => stack.post(page, { key, headers }));
    advanceClock(3_000);
    const { answer: viaApollo, steps: apolloSteps } = await operationSteps(() =>
      throughApollo(() => stack.post(page, { key, headers })),
    );
    const { answer: front, steps } = await operationSteps(() => stack.post(page, { key, headers }));
    expect(apolloSteps).toEqual(['operation-shape']);
    expect(steps).toEqual([]);
    expect(viaApollo.body.extensions?.responseCache).toMatchObject({ hit: true });
    expect(front.status).toBe(viaApollo.status);
    expect(headersOf(front)).toEqual(headersOf(viaApollo));
    expect(front.text).toBe(viaApollo.text);
  }
});

it('answers the same entry again, and at its next age, with the bytes Apollo writes then', async () => {
  const key = 'sim-key-9202';
  await throughApollo(() => stack.post(page, { key }));
  for (const step of [1_000, 0, 2_000, 0]) {
    advanceClock(step);
    const viaApollo = await throughApollo(() => stack.post(page, { key }));
    const { answer: front, steps } = await operationSteps(() => stack.post(page, { key }));
    expect(steps).toEqual([]);
    expect(headersOf(front)).toEqual(headersOf(viaApollo));
    expect(front.text).toBe(viaApollo.text);
  }
});

it('leaves a different request, a no-cache request and a key after its write to Apollo', async () => {
  const key = 'sim-key-9202';
  await stack.post(page, { key });
  // The same operation with an extra member, with no-cache, with a Prefer: each through the pipeline.
  for (const [body, headers] of [
    [{ ...page, extensions: {} }, undefined],
    [page, { 'cache-control': 'no-cache' }],
    [page, { prefer: 'wait=1' }],
  ] as const) {
    const { answer, steps } = await operationSteps(() => stack.post(body, { key, headers }));
    expect(steps).toEqual(['operation-shape']);
    expect(answer.body.errors).toBeUndefined();
  }
  // Another key's identical request: its own execution, never this key's bytes.
  const { steps } = await operationSteps(() => stack.post(page, { key: 'sim-key-9203' }));
  expect(steps).toEqual(['operation-shape']);
  const hit = await operationSteps(() => stack.post(page, { key }));
  expect(hit.steps).toEqual([]);
});

it("no longer answers a key's entry before the pipeline once the key wrote", async () => {
  const key = DEMO_KEYS.premium.key;
  const options = { query: print(FactoryOptionsDocument), variables: { id: FIXTURE_IDS.shop, slot: 3 } };
  await stack.post(options, { key });
  const hit = await operationSteps(() => stack.post(options, { key }));
  expect(hit.steps).toEqual([]);
  expect(hit.answer.body.data).toMatchObject({ factory: { option: null } });
  const write = await stack.post(
    {
      query: print(UpdateFactoryOptionMessageOnlyDocument),
      variables: { input: { factoryId: FIXTURE_IDS.shop, slot: 3, title: 'Neu', data: 'frisch' } },
    },
    { key, headers: { 'x-api-secret': DEMO_KEYS.premium.secret } },
  );
  expect(write.body.errors).toBeUndefined();
  const after = await operationSteps(() => stack.post(options, { key }));
  expect(after.steps).toEqual(['operation-shape']);
  expect(after.answer.body.extensions?.responseCache).toBeUndefined();
  expect(after.answer.body.data).toMatchObject({ factory: { option: { slot: 3, title: 'Neu', data: 'frisch' } } });
});
