/** Keys: add (key and optional secret, never shown again), replace, remove. */
import { useState } from 'react';
import { gql } from './api';
import { Message, SubmitRow, useAction, useQuery, useSubmit, when } from './ui';

interface Character {
  id: string;
  name: string;
  addedAt: string;
  hasSecret: boolean;
  companies: string[] | null;
}

const CHARACTERS = `query Characters { vaultCharacters { id name addedAt hasSecret companies } }`;
const ADD = `mutation AddKey($input: AddVaultKeyInput!) { addVaultKey(input: $input) { name companies } }`;
const REMOVE = `mutation RemoveKey($name: String!) { removeVaultKey(name: $name) }`;

/** The keys page. */
export function Keys(): JSX.Element {
  const { data, error, reload } = useQuery<{ vaultCharacters: Character[] }>(CHARACTERS);
  const remove = useAction();
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [secret, setSecret] = useState('');

  const add = useSubmit(async () => {
    // The key and secret leave the page as they are sent, whatever the answer: never kept in the form.
    setKey('');
    setSecret('');
    const answer = await gql<{ addVaultKey: { name: string; companies: string[] | null } }>(ADD, {
      input: { name, key, secret: secret === '' ? null : secret },
    });
    setName('');
    await reload();
    return `Key "${answer.addVaultKey.name}" stored (it owns ${answer.addVaultKey.companies?.length ?? 0} companies). The key and secret are not shown again.`;
  });

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      <Message text={error} error />
      <table className="list" id="characters">
        <caption>StateV keys in the vault (the keys themselves are never shown)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Added</th>
            <th scope="col">Secret</th>
            <th scope="col">Companies</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data?.vaultCharacters.map((character) => (
            <tr key={character.id}>
              <td>{character.name}</td>
              <td>{when(character.addedAt)}</td>
              <td>{character.hasSecret ? 'stored' : 'none'}</td>
              <td>{character.companies === null ? 'not checked' : character.companies.join(', ') || 'none'}</td>
              <td>
                <button type="button" className="link" onClick={() => setName(character.name)}>
                  Replace<span className="visually-hidden"> {character.name}</span>
                </button>{' '}
                <button
                  type="button"
                  className="danger"
                  disabled={remove.busy}
                  onClick={() =>
                    void remove.run(async () => {
                      if (!window.confirm(`Remove the key "${character.name}"? Tokens over it stop working.`))
                        return 'Nothing removed.';
                      await gql(REMOVE, { name: character.name });
                      await reload();
                      return `Key "${character.name}" removed.`;
                    })
                  }
                >
                  Remove<span className="visually-hidden"> {character.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Message text={remove.message} error={remove.failed} />
      <form onSubmit={add.onSubmit} aria-labelledby="add-key-title">
        <h3 id="add-key-title">Add or replace a key</h3>
        <p>
          The gateway tries the key once against the StateV API before it stores it. A name that exists is replaced.
        </p>
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"
          autoComplete="off"
        />
        <label htmlFor="key-key">API key</label>
        <input
          id="key-key"
          type="password"
          required
          value={key}
          onChange={(event) => setKey(event.target.value)}
          autoComplete="off"
        />
        <label htmlFor="key-secret">API secret (optional, for premium endpoints)</label>
        <input
          id="key-secret"
          type="password"
          value={secret}
          onChange={(event) => setSecret(event.target.value)}
          autoComplete="off"
        />
        <SubmitRow submit={add}>{add.busy ? 'Checking…' : 'Add key'}</SubmitRow>
      </form>
    </section>
  );
}
