/**
 * Every log line of one request names its key the same way: the first
 * 8 characters of the key's id (`keyId`, the HMAC with `KEY_HASH_SECRET`), on
 * "graphql operation" and on "upstream request failed" alike. The upstream client gets
 * the key id from the economy, and hashes nothing itself; the key never appears in clear.
 */
import { keyId } from '../../src/economy';
import { DEFAULT_CONFIG } from '../../src/config';
import { DEMO_KEYS } from '../../src/simulator';
import { LineCollector, useStacks } from '../support';

describe('the key in the log lines of one request', () => {
  const stacks = useStacks();

  it.each([
    ['an API key', DEMO_KEYS.premium.key],
    ['another API key', DEMO_KEYS.basic.key],
  ])("%s is named by one key id on every line, the operation's and the upstream failure's", async (_name, key) => {
    const logs = new LineCollector();
    const stack = await stacks.start({ http: true, mock: true, logDestination: logs, config: { logLevel: 'info' } });
    // The factory list fails (then its one retry): an `upstream request failed` line.
    stack
      .upstream()
      .intercept({ path: '/req/factory/list/', method: 'GET' })
      .reply(500, '{"message":"down"}', { headers: { 'content-type': 'application/json' } })
      .times(2);
    const answer = await stack.post({ query: '{ factories { id } }' }, { key });
    expect(answer.status).toBe(200);

    const records = logs.records();
    const named = records.filter((record) => 'key' in record);
    expect(named.map((record) => record.msg)).toEqual(
      expect.arrayContaining(['graphql operation', 'upstream request failed']),
    );
    const id = keyId(key, DEFAULT_CONFIG.keyHashSecret).slice(0, 8);
    expect(new Set(named.map((record) => record.key))).toEqual(new Set([id]));
    expect(logs.lines.join('\n')).not.toContain(key);
  });
});
