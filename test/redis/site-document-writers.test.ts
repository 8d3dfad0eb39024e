/**
 * Site-document writers never collide: two gateway replicas sharing a real Redis, two keys
 * of the same character, both writing one company's document at once, 50 rounds, without
 * `expectedVersion`. Redis's write lock serialises them: no read is ever
 * SITE_DOCUMENT_CORRUPT, no writer's slot writes interleave with another's, versions
 * strictly increase (each answer names the version it replaced, the previous answer's),
 * and the final document is the last committed answer's value.
 */
import { DEMO_KEYS, FIXTURE_IDS, startSimulator } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import { UNLIMITED_SIMULATOR } from '../support/upstream-limit';
import { codes, describeWithRedis, startStack, startTestRedis } from '../support';
import type { Stack, TestRedis } from '../support';

const ROUNDS = 50;
const farm = FIXTURE_IDS.farm;
const SET = `mutation Set($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { replacedVersion committed document { version } } }`;
const READ = `query Read($id: ID!) { factory(id: $id) { siteDocument(name: "hours") { version value } } }`;

interface Answer {
  replacedVersion: number;
  committed: boolean;
  document: { version: number };
}

describeWithRedis('site-document writers on two replicas and two keys', () => {
  let redis: TestRedis | undefined;
  let simulator: Simulator;
  let a: Stack;
  let b: Stack;

  beforeAll(async () => {
    redis = await startTestRedis();
    simulator = await startSimulator(UNLIMITED_SIMULATOR);
    const config = { redisPrefix: `statev-test-${process.pid}-writers:`, upstreamPatienceMs: 10_000 };
    a = await startStack({ simulator, redis, config });
    b = await startStack({ simulator, redis, config });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await simulator?.close();
    await redis?.stop();
  });

  it(`${ROUNDS} rounds of concurrent writes: serialised, versions strictly increasing, never corrupt`, async () => {
    // A generated simulator key: the same character as the premium key, secret `<key>-secret`.
    const second = { key: 'sim-key-910001', secret: 'sim-key-910001-secret' };
    const writers = [
      { stack: a, key: DEMO_KEYS.premium.key, secret: DEMO_KEYS.premium.secret },
      { stack: b, key: second.key, secret: second.secret },
    ];
    const answers: Array<Answer & { value: unknown }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const results = await Promise.all(
        writers.map(async (writer, index) => {
          const value = { round, writer: index, text: `round ${round} by ${index}` };
          const result = await writer.stack.executeText(
            SET,
            { input: { factoryId: farm, name: 'hours', value } },
            { key: writer.key, headers: { 'x-api-secret': writer.secret } },
          );
          return { result, value };
        }),
      );
      for (const { result, value } of results) {
        if (result.errors) {
          // Refused while the other wrote (its honest time): allowed, never anything else.
          expect(codes(result)).toEqual(['CONFLICT']);
          continue;
        }
        const answer = (result.data as { setSiteDocument: Answer }).setSiteDocument;
        expect(answer.committed).toBe(true);
        answers.push({ ...answer, value });
      }
      // Both replicas read the document whole (no-cache: straight from the slots).
      for (const writer of writers) {
        const read = await writer.stack.executeText(
          READ,
          { id: farm },
          { key: writer.key, headers: { 'cache-control': 'no-cache' } },
        );
        expect(codes(read)).toEqual([]);
      }
    }

    // Versions strictly increase, each answer replacing the one before.
    const ordered = [...answers].sort((x, y) => x.document.version - y.document.version);
    expect(ordered.length).toBeGreaterThanOrEqual(ROUNDS);
    ordered.forEach((answer, index) => {
      expect(answer.document.version).toBe(index + 1);
      expect(answer.replacedVersion).toBe(index);
    });

    // No writer's slot writes interleave with another's: the POSTs come in runs of one key, each a whole write.
    const posts = simulator.requests.filter((request) => request.method === 'POST');
    const runs: number[] = [];
    posts.forEach((request, index) => {
      if (index > 0 && posts[index - 1]?.keyLabel === request.keyLabel) runs[runs.length - 1] = (runs.at(-1) ?? 0) + 1;
      else runs.push(1);
    });
    const writesEach = posts.length / answers.length;
    expect(Number.isInteger(writesEach)).toBe(true);
    for (const run of runs) expect(run % writesEach).toBe(0);

    // The final document is the last committed answer's value.
    const final = await a.executeText(
      READ,
      { id: farm },
      { key: DEMO_KEYS.premium.key, headers: { 'cache-control': 'no-cache' } },
    );
    expect(
      (final.data as { factory: { siteDocument: { version: number; value: unknown } } }).factory.siteDocument,
    ).toEqual({
      version: ordered.at(-1)?.document.version,
      value: ordered.at(-1)?.value,
    });
  }, 120_000);
});
