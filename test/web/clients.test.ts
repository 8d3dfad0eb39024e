/**
 * The three popular GraphQL clients, each on its default settings, against a running
 * gateway over real HTTP: Apollo Client (POST, `Accept: application/graphql-response+json,
 * application/json;q=0.9`), urql (queries as GET with no content type) and
 * graphql-request (POST). Queries, the mutation, and the error messages a first user sees.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql as apolloGql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { Client as UrqlClient, cacheExchange, fetchExchange, gql as urqlGql } from '@urql/core';
import { GraphQLClient, gql as requestGql } from 'graphql-request';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { examplePublicSiteConfig, useStack } from '../support';

const FACTORIES = `{ factories { id name counter { items { item price } } } }`;
const UPDATE = `mutation Update($input: UpdateFactoryOptionInput!) { updateFactoryOption(input: $input) { message option { slot title data } } }`;
const premium = { authorization: `Bearer ${DEMO_KEYS.premium.key}` };
const updateInput = (title: string) => ({ input: { factoryId: FIXTURE_IDS.farm, slot: 3, title, data: 'Mon-Fri' } });

describe('GraphQL clients on their default settings', () => {
  const stack = useStack({ http: true });
  describe('Apollo Client', () => {
    const client = (headers: Record<string, string>) =>
      new ApolloClient({ link: new HttpLink({ uri: stack.endpoint, headers }), cache: new InMemoryCache() });

    it('runs a query and the mutation', async () => {
      const apollo = client({ ...premium, 'x-api-secret': DEMO_KEYS.premium.secret });
      const { data } = await apollo.query<{ factories: { name: string }[] }>({ query: apolloGql(FACTORIES) });
      expect(data?.factories.map((f) => f.name)).toContain('Max 24/7 Vinewood');
      const result = await apollo.mutate<{ updateFactoryOption: { message: string; option: { title: string } } }>({
        mutation: apolloGql(UPDATE),
        variables: updateInput('Apollo'),
      });
      expect(result.data?.updateFactoryOption).toMatchObject({
        message: 'option was updated',
        option: { title: 'Apollo' },
      });
    });

    it('shows the gateway message of a request error, not just a status code', async () => {
      const apollo = client(premium);
      await expect(apollo.mutate({ mutation: apolloGql(UPDATE), variables: updateInput('no secret') })).rejects.toThrow(
        /needs the API secret/,
      );
    });

    it('BatchHttpLink shows on each operation that batching is not supported', async () => {
      const apollo = new ApolloClient({
        link: new BatchHttpLink({ uri: stack.endpoint, headers: premium }),
        cache: new InMemoryCache(),
      });
      const results = await Promise.allSettled([
        apollo.query({ query: apolloGql(FACTORIES) }),
        apollo.query({ query: apolloGql('{ buildings { id } }') }),
      ]);
      expect(results.map((r) => (r.status === 'rejected' ? String((r.reason as Error).message) : 'answered'))).toEqual([
        expect.stringMatching(/Batched requests .* not supported/),
        expect.stringMatching(/Batched requests .* not supported/),
      ]);
    });

    it('shows why a malformed Authorization header is refused', async () => {
      const apollo = client({ authorization: 'Bearer <your StateV API key>' });
      await expect(apollo.query({ query: apolloGql(FACTORIES) })).rejects.toThrow(
        /Authorization header .*Bearer <token>/,
      );
    });
  });

  describe('urql', () => {
    const client = (headers: Record<string, string>) =>
      new UrqlClient({ url: stack.endpoint, exchanges: [cacheExchange, fetchExchange], fetchOptions: { headers } });

    it('runs a query (sent as GET with Authorization and no content type)', async () => {
      const requests: { method: string; contentType: string | null }[] = [];
      const urql = new UrqlClient({
        url: stack.endpoint,
        exchanges: [cacheExchange, fetchExchange],
        fetchOptions: { headers: premium },
        fetch: async (input, init) => {
          requests.push({ method: init?.method ?? 'GET', contentType: new Headers(init?.headers).get('content-type') });
          return fetch(input, init);
        },
      });
      const result = await urql.query(urqlGql(FACTORIES), {}).toPromise();
      expect(result.error).toBeUndefined();
      expect((result.data as { factories: { name: string }[] }).factories.map((f) => f.name)).toContain(
        'Max 24/7 Vinewood',
      );
      expect(requests).toEqual([{ method: 'GET', contentType: null }]);
    });

    it('runs the mutation', async () => {
      const urql = client({ ...premium, 'x-api-secret': DEMO_KEYS.premium.secret });
      const result = await urql.mutation(urqlGql(UPDATE), updateInput('urql')).toPromise();
      expect(result.error).toBeUndefined();
      expect(result.data).toMatchObject({
        updateFactoryOption: { message: 'option was updated', option: { title: 'urql' } },
      });
    });
  });

  describe('graphql-request', () => {
    it('runs a query and the mutation', async () => {
      const client = new GraphQLClient(stack.endpoint, {
        headers: { ...premium, 'x-api-secret': DEMO_KEYS.premium.secret },
      });
      const data = await client.request<{ factories: { name: string }[] }>(requestGql`${FACTORIES}`);
      expect(data.factories.map((f) => f.name)).toContain('Max 24/7 Vinewood');
      const written = await client.request<{ updateFactoryOption: { option: { title: string } } }>(
        UPDATE,
        updateInput('graphql-request'),
      );
      expect(written.updateFactoryOption.option.title).toBe('graphql-request');
    });

    it('explains that batching is not supported', async () => {
      const client = new GraphQLClient(stack.endpoint, { headers: premium });
      await expect(client.batchRequests([{ document: FACTORIES }, { document: FACTORIES }])).rejects.toThrow(
        /[Bb]atched requests .* not supported/,
      );
    });
  });
});

describe('GraphQL clients against public-site mode', () => {
  const stack = useStack({ http: true, config: examplePublicSiteConfig() });
  it("Apollo Client sees the gateway's reason when a keyless query is refused", async () => {
    const apollo = new ApolloClient({ link: new HttpLink({ uri: stack.endpoint }), cache: new InMemoryCache() });
    await expect(apollo.query({ query: apolloGql(FACTORIES) })).rejects.toThrow(/trusted documents/);
  });

  it('urql sees the same reason (keyless, so sent as POST: a keyless simple GET is refused as possible CSRF)', async () => {
    const urql = new UrqlClient({
      url: stack.endpoint,
      exchanges: [cacheExchange, fetchExchange],
      preferGetMethod: false,
    });
    const result = await urql.query(urqlGql(FACTORIES), {}).toPromise();
    expect(result.error?.message).toMatch(/trusted documents/);
  });
});
