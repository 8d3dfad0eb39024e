/** Tokens: create with a grant picker (shown once, with a copy button), the list with last use, revoke. */
import { useState } from 'react';
import { gql } from './api';
import { Message, SubmitRow, useAction, useQuery, useSubmit, when } from './ui';

interface Token {
  id: string;
  characters: string[];
  grants: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  origin: string | null;
  budgetShare: number | null;
  label: string | null;
}

interface TokensData {
  accessTokens: Token[];
  vaultCharacters: Array<{ name: string; companies: string[] | null }>;
}

const TOKENS = `query Tokens { accessTokens { id characters grants createdAt expiresAt revokedAt lastUsedAt origin budgetShare label } vaultCharacters { name companies } }`;
const CREATE = `mutation CreateToken($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { token summary { id } } }`;
const REVOKE = `mutation RevokeToken($id: ID!) { revokeAccessToken(id: $id) { id revokedAt } }`;

const GRANTS: ReadonlyArray<{ grant: string; meaning: string }> = [
  { grant: 'read', meaning: 'read every field' },
  { grant: 'subscribe', meaning: 'subscriptions and live queries' },
  { grant: 'write:payments', meaning: 'create payment requests' },
  { grant: 'admin', meaning: 'the administration graph' },
];

/** The tokens page. */
export function Tokens(): JSX.Element {
  const { data, error, reload } = useQuery<TokensData>(TOKENS);
  const revoke = useAction();
  const [characters, setCharacters] = useState<string[]>([]);
  const [grants, setGrants] = useState<string[]>(['read']);
  const [more, setMore] = useState('');
  const [origin, setOrigin] = useState('');
  const [expiresIn, setExpiresIn] = useState('30d');
  const [share, setShare] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  const toggle = (list: string[], value: string, set: (next: string[]) => void): void =>
    set(list.includes(value) ? list.filter((each) => each !== value) : [...list, value]);
  const companies = [
    ...new Set(
      (data?.vaultCharacters ?? [])
        .filter((each) => characters.includes(each.name))
        .flatMap((each) => each.companies ?? []),
    ),
  ];
  const unchecked = (data?.vaultCharacters ?? [])
    .filter((each) => characters.includes(each.name) && each.companies === null)
    .map((each) => each.name);

  const create = useSubmit(async () => {
    setCreated(null);
    setCopied(false);
    const all = [...grants, ...more.split(/[\s,]+/).filter((each) => each !== '')];
    const input = {
      characters,
      grants: all,
      expiresIn,
      origin: origin.trim() === '' ? null : origin.trim(),
      budgetShare: share === '' ? null : Number(share),
    };
    const answer = await gql<{ createAccessToken: { token: string; summary: { id: string } } }>(CREATE, { input });
    setCreated(answer.createAccessToken.token);
    await reload();
    return `Token ${answer.createAccessToken.summary.id} created. Copy it now: it is not shown again.`;
  });

  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Access tokens</h2>
      <Message text={error} error />
      <form onSubmit={create.onSubmit} aria-labelledby="create-token-title">
        <h3 id="create-token-title">Create a token</h3>
        <fieldset>
          <legend>Characters</legend>
          {data?.vaultCharacters.map((character) => (
            <label key={character.name} className="check">
              <input
                type="checkbox"
                checked={characters.includes(character.name)}
                onChange={() => toggle(characters, character.name, setCharacters)}
              />{' '}
              {character.name}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Grants</legend>
          {GRANTS.map(({ grant, meaning }) => (
            <label key={grant} className="check">
              <input
                type="checkbox"
                checked={grants.includes(grant)}
                onChange={() => toggle(grants, grant, setGrants)}
              />{' '}
              <code>{grant}</code> ({meaning})
            </label>
          ))}
          {companies.map((id) => (
            <label key={id} className="check">
              <input
                type="checkbox"
                checked={grants.includes(`factory:${id}`)}
                onChange={() => toggle(grants, `factory:${id}`, setGrants)}
              />{' '}
              <code>factory:{id}</code> (this company only)
            </label>
          ))}
          {unchecked.length > 0 && (
            <p className="hint">
              The companies of {unchecked.join(', ')} are not known (added with the command line): add the key again on
              the Keys page to list them, or type factory:&lt;id&gt; below.
            </p>
          )}
          <label htmlFor="token-more">More grants (space separated, e.g. write:siteDocument:catalogue)</label>
          <input id="token-more" value={more} onChange={(event) => setMore(event.target.value)} autoComplete="off" />
        </fieldset>
        <label htmlFor="token-origin">Browser origin (optional, e.g. https://shop.example)</label>
        <input
          id="token-origin"
          value={origin}
          onChange={(event) => setOrigin(event.target.value)}
          autoComplete="off"
        />
        <label htmlFor="token-expires">Expires in (a number and s, m, h, d or w)</label>
        <input
          id="token-expires"
          required
          value={expiresIn}
          onChange={(event) => setExpiresIn(event.target.value)}
          autoComplete="off"
        />
        <label htmlFor="token-share">Budget share (requests per window, optional)</label>
        <input
          id="token-share"
          type="number"
          min={1}
          value={share}
          onChange={(event) => setShare(event.target.value)}
        />
        <SubmitRow submit={create}>Create token</SubmitRow>
        {created && (
          <div className="secret-once">
            <label htmlFor="token-created">The new token (shown this once)</label>
            <input id="token-created" readOnly value={created} onFocus={(event) => event.target.select()} />
            <button
              type="button"
              onClick={() =>
                void navigator.clipboard.writeText(created).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              Copy
            </button>
            {copied && <span role="status"> Copied.</span>}
          </div>
        )}
      </form>
      <div className="scroll" tabIndex={0} role="region" aria-label="The list (scrolls sideways)">
        <table className="list" id="tokens">
          <caption>Tokens, newest first (never the token itself)</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Characters</th>
              <th scope="col">Grants</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {data?.accessTokens.map((token) => (
              <tr key={token.id}>
                <td>
                  <code>{token.id}</code>
                  {token.label && <span className="hint"> ({token.label})</span>}
                </td>
                <td>{token.characters.join(', ') || '—'}</td>
                <td>{token.grants.join(' ')}</td>
                <td>{when(token.expiresAt)}</td>
                <td>{when(token.lastUsedAt)}</td>
                <td>
                  {token.revokedAt ? (
                    `revoked ${when(token.revokedAt)}`
                  ) : (
                    <button
                      type="button"
                      className="danger"
                      disabled={revoke.busy}
                      onClick={() =>
                        void revoke.run(async () => {
                          await gql(REVOKE, { id: token.id });
                          await reload();
                          return `Token ${token.id} revoked.`;
                        })
                      }
                    >
                      Revoke<span className="visually-hidden"> {token.id}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Message text={revoke.message} error={revoke.failed} />
    </section>
  );
}
