import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readGraphQLRequest } from '../../src/web/apollo-http';
import type { ReadRequest, Refusal } from '../../src/web/apollo-http';

// A POST body is kept on its connection: the next request with the same bytes and
// Content-Type gets the same parsed value (frozen) without parsing it again.
describe('readGraphQLRequest on a kept-alive connection', () => {
  const reads: Array<ReadRequest | Refusal> = [];
  const server = createServer((req, res) => {
    void readGraphQLRequest(req, { maxBodyBytes: 64 * 1024 }).then((read) => {
      reads.push(read);
      res.end('ok');
    });
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  afterAll(async () => {
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (body: string, contentType = 'application/json'): Promise<ReadRequest | Refusal> =>
    new Promise((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const call = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/graphql', agent, headers: { 'content-type': contentType } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(reads[reads.length - 1] as ReadRequest | Refusal));
        },
      );
      call.on('error', reject);
      call.end(body);
    });

  it('gives the same frozen value for the same bytes, and parses other bytes or another type anew', async () => {
    const text = JSON.stringify({ query: '{ a }', variables: { id: 'x', list: [1, { deep: true }] } });
    const first = (await post(text)) as ReadRequest;
    const second = (await post(text)) as ReadRequest;
    expect(second.body).toBe(first.body);
    expect(second.text).toBe(text);
    expect(Object.isFrozen(first.body)).toBe(true);
    expect(Object.isFrozen((first.body as { variables: { list: unknown[] } }).variables.list[1])).toBe(true);
    // Another body, or the same bytes as another type: read afresh.
    const other = (await post(JSON.stringify({ query: '{ b }' }))) as ReadRequest;
    expect(other.body).toEqual({ query: '{ b }' });
    const asText = (await post(text, 'text/plain')) as ReadRequest;
    expect(asText.body).toBe(text);
    const again = (await post(text)) as ReadRequest;
    expect(again.body).toEqual(first.body);
    // A refusal is never kept: the same bad bytes are refused each time.
    expect(await post('{"query":')).toMatchObject({ kind: 'refused', status: 400 });
    expect(await post('{"query":')).toMatchObject({ kind: 'refused', status: 400 });
  });
});
