/**
 * Site documents: per company, the documents (name, version, size) and a JSON editor that
 * checks the text before saving, shows its size against the slots it needs, saves with the
 * expected version and shows a conflict as one.
 *
 * Reading and writing a document reads and writes the company's option slots upstream, so it
 * happens on the public graph (/graphql), where it spends the character key's budget; the
 * administration graph spends none and only makes the short-lived token for it
 * (`siteDocumentEditor`: that company, that document, 15 minutes, this origin). The token
 * lives in this page's memory only.
 */
import { useCallback, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { ConsoleError, describeError, gql, publicGql } from './api';
import { checkJson, slotsFor } from './document-json';
import type { Capacity } from './document-json';
import { Message, useQuery, useSubmit, when } from './ui';

interface DocumentInfo {
  name: string;
  version: number;
  bytes: number;
  slots: number[];
  updatedAt: string | null;
}

interface Listing {
  factory: { id: string; name: string; siteDocuments: DocumentInfo[] | null; siteDocumentCapacity: Capacity } | null;
}

interface Minted {
  token: string;
  expiresAt: string;
  name: string | null;
  factoryId: string;
  mintedAt: number;
}

/** The document in the editor: `version` 0 for a new one. */
interface Editing {
  name: string;
  version: number;
  slots: number;
}

const CHARACTERS = `query DocumentCompanies { vaultCharacters { name companies } }`;
const MINT = `mutation EditorToken($input: SiteDocumentEditorInput!) { siteDocumentEditor(input: $input) { token expiresAt } }`;
const LIST = `query SiteDocuments($id: ID!) { factory(id: $id) { id name siteDocuments { name version bytes slots updatedAt } siteDocumentCapacity { freeSlots foreignSlots documentSlots estimatedFreeBytes } } }`;
const READ = `query SiteDocument($id: ID!, $name: String!) { factory(id: $id) { siteDocument(name: $name) { name version slots value } } }`;
const SAVE = `mutation SaveSiteDocument($input: SetSiteDocumentInput!) { setSiteDocument(input: $input) { committed retryAfterSeconds upstreamWrites document { version slots } } }`;
const DELETE = `mutation DeleteSiteDocument($input: DeleteSiteDocumentInput!) { deleteSiteDocument(input: $input) { freedSlots replacedVersion } }`;
const NAME = /^[a-z0-9._-]{1,32}$/;

/** The site-documents page. */
export function SiteDocuments(): JSX.Element {
  const companies = useQuery<{ vaultCharacters: Array<{ name: string; companies: string[] | null }> }>(CHARACTERS);
  const [chosen, setChosen] = useState('');
  const [listing, setListing] = useState<Listing['factory']>(null);
  const [listMessage, setListMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [text, setText] = useState('');
  const [conflict, setConflict] = useState<number | null>(null);
  const [newName, setNewName] = useState('');
  const token = useRef<Minted | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);
  // The editor's save, and the open and delete beside it: one busy flag and one message line.
  const submit = useSubmit(() => save());
  const { busy, say, run } = submit;

  const [character = '', factoryId = ''] = chosen.split('|');
  const checked = checkJson(text);

  /** A token for this company (and `name`, to write it): the one in memory while it lasts, else a new one. */
  const tokenFor = useCallback(
    async (name: string | null, fresh = false): Promise<Minted> => {
      const held = token.current;
      const lasts = held !== null && new Date(held.expiresAt).getTime() - Date.now() > 30_000;
      if (!fresh && held && lasts && held.factoryId === factoryId && (name === null || held.name === name)) return held;
      const answer = await gql<{ siteDocumentEditor: { token: string; expiresAt: string } }>(MINT, {
        input: { character, factoryId, name },
      });
      token.current = { ...answer.siteDocumentEditor, name, factoryId, mintedAt: Date.now() };
      return token.current;
    },
    [character, factoryId],
  );

  /** Runs an operation on the public graph; a token refused (ended, or not yet seen by this replica) is made again once. */
  const onPublic = useCallback(
    async <T,>(name: string | null, query: string, variables: Record<string, unknown>): Promise<T> => {
      const held = await tokenFor(name);
      try {
        return await publicGql<T>(held.token, query, variables);
      } catch (error) {
        if (!(error instanceof ConsoleError) || error.status !== 401) throw error;
        // Another replica sees a new token within 1 s.
        if (Date.now() - held.mintedAt < 2000) await new Promise((resolve) => setTimeout(resolve, 1000));
        return publicGql<T>((await tokenFor(name, true)).token, query, variables);
      }
    },
    [tokenFor],
  );

  const list = useCallback(async (): Promise<void> => {
    if (!factoryId) return;
    try {
      const answer = await onPublic<Listing>(null, LIST, { id: factoryId });
      setListing(answer.factory);
      setListMessage(null);
    } catch (error) {
      setListMessage({ text: describeError(error), error: true });
    }
  }, [factoryId, onPublic]);

  const choose = (value: string): void => {
    setChosen(value);
    setListing(null);
    setEditing(null);
    say(null);
    setConflict(null);
    token.current = null;
  };

  const load = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setListMessage({ text: 'Reading the documents (from the cache, or the option slots upstream)…', error: false });
    await list();
  };

  const open = (name: string): Promise<boolean> => {
    say(null);
    setConflict(null);
    return run(async () => {
      const answer = await onPublic<{
        factory: { siteDocument: { name: string; version: number; slots: number[]; value: unknown } | null } | null;
      }>(name, READ, { id: factoryId, name });
      const document = answer.factory?.siteDocument;
      if (!document) throw new Error(`There is no document "${name}" (any more): reload the list.`);
      setEditing({ name, version: document.version, slots: document.slots.length });
      setText(JSON.stringify(document.value, null, 2));
      return `Opened ${name}, version ${document.version}.`;
    });
  };

  const create = (event: FormEvent): void => {
    event.preventDefault();
    const name = newName.trim();
    if (!NAME.test(name)) {
      say(`"${name}" is not a document name: 1 to 32 of a-z, 0-9, '-', '_' and '.'.`, true);
      return;
    }
    if (listing?.siteDocuments?.some((each) => each.name === name)) {
      say(`The document "${name}" exists: open it from the list.`, true);
      return;
    }
    setEditing({ name, version: 0, slots: 0 });
    setText('{}');
    setConflict(null);
    say(`New document ${name}: not stored until you save it.`);
    setNewName('');
  };

  /** A version conflict shown as one (with the current version) and no message; any other failure thrown on, to be the message. */
  const conflictOr = (error: unknown): null => {
    if (
      error instanceof ConsoleError &&
      error.code === 'CONFLICT' &&
      typeof error.extensions.currentVersion === 'number'
    ) {
      setConflict(error.extensions.currentVersion);
      return null;
    }
    throw error;
  };

  /** The editor's save (run by `submit`): the message it answers, null for a conflict. */
  const save = async (): Promise<string | null> => {
    if (!editing) return null;
    if (!checked.ok) {
      editor.current?.focus();
      editor.current?.setSelectionRange(checked.position, checked.position);
      throw new Error('Not saved: the text is not JSON (see above).');
    }
    setConflict(null);
    say(`Saving ${editing.name}…`);
    try {
      const input = { factoryId, name: editing.name, value: checked.value, expectedVersion: editing.version };
      const { setSiteDocument: saved } = await onPublic<{
        setSiteDocument: {
          committed: boolean;
          retryAfterSeconds: number | null;
          upstreamWrites: number;
          document: { version: number; slots: number[] };
        };
      }>(editing.name, SAVE, { input });
      setEditing({ ...editing, version: saved.document.version, slots: saved.document.slots.length });
      const done = saved.committed
        ? `Saved: ${editing.name} is version ${saved.document.version} (${saved.upstreamWrites} slot writes).`
        : `Saving as version ${saved.document.version}: the key's budget paces the writes, which go on in the background and commit in about ${saved.retryAfterSeconds ?? '?'} s. Until then the list shows the previous version.`;
      say(done);
      await list();
      return done;
    } catch (error) {
      return conflictOr(error);
    }
  };

  const remove = async (): Promise<void> => {
    if (!editing || editing.version === 0) return;
    if (!window.confirm(`Delete ${editing.name} (version ${editing.version})? Its option slots are cleared upstream.`))
      return;
    setConflict(null);
    await run(async () => {
      try {
        const input = { factoryId, name: editing.name, expectedVersion: editing.version };
        const { deleteSiteDocument: deleted } = await onPublic<{
          deleteSiteDocument: { freedSlots: number[]; replacedVersion: number };
        }>(editing.name, DELETE, { input });
        const done = `Deleted ${editing.name}: slots ${deleted.freedSlots.join(', ') || 'none'} freed.`;
        say(done);
        setEditing(null);
        await list();
        return done;
      } catch (error) {
        return conflictOr(error);
      }
    });
  };

  const options = (companies.data?.vaultCharacters ?? []).flatMap((each) =>
    (each.companies ?? []).map((id) => ({ value: `${each.name}|${id}`, label: `${id} (${each.name})` })),
  );
  const unchecked = (companies.data?.vaultCharacters ?? []).filter((each) => each.companies === null);
  const size = checked.ok ? slotsFor(checked.bytes, listing?.siteDocumentCapacity ?? null, editing?.slots ?? 0) : null;

  return (
    <section aria-labelledby="documents-title">
      <h2 id="documents-title">Site documents</h2>
      <p className="hint">
        JSON documents a company's website keeps in its option slots. They are read and written on the public graph with
        a token this page gets for 15 minutes (that company and document only), and spend the character's upstream
        budget like every read and write of the slots.
      </p>
      <Message text={companies.error} error />
      <form onSubmit={(event) => void load(event)} aria-labelledby="documents-pick-title">
        <h3 id="documents-pick-title">Company</h3>
        <label htmlFor="documents-company">Company (and the character whose key serves it)</label>
        <select id="documents-company" value={chosen} onChange={(event) => choose(event.target.value)}>
          <option value="">Choose a company</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        {unchecked.length > 0 && (
          <p className="hint">
            The companies of {unchecked.map((each) => each.name).join(', ')} are not known (added with the command
            line): add the key again on the Keys page to list them.
          </p>
        )}
        <button type="submit" disabled={!chosen}>
          Show documents
        </button>
        {listMessage && <Message text={listMessage.text} error={listMessage.error} />}
      </form>

      {listing && (
        <>
          <div className="scroll" tabIndex={0} role="region" aria-label="The documents (scrolls sideways)">
            <table className="list" id="site-documents">
              <caption>
                Documents of {listing.name} ({listing.id})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Version</th>
                  <th scope="col">Size</th>
                  <th scope="col">Slots</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Edit</th>
                </tr>
              </thead>
              <tbody>
                {(listing.siteDocuments ?? []).length === 0 && (
                  <tr>
                    <td colSpan={6}>No site document yet.</td>
                  </tr>
                )}
                {(listing.siteDocuments ?? []).map((each) => (
                  <tr key={each.name}>
                    <td>
                      <code>{each.name}</code>
                    </td>
                    <td>{each.version}</td>
                    <td>{each.bytes.toLocaleString('en')} bytes</td>
                    <td>{each.slots.join(', ')}</td>
                    <td>{when(each.updatedAt)}</td>
                    <td>
                      <button type="button" className="link" disabled={busy} onClick={() => void open(each.name)}>
                        Open<span className="visually-hidden"> {each.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p id="documents-capacity">
            Free slots: {listing.siteDocumentCapacity.freeSlots.join(', ') || 'none'} (about{' '}
            {listing.siteDocumentCapacity.estimatedFreeBytes.toLocaleString('en')} bytes of JSON for a new document);
            held by documents: {listing.siteDocumentCapacity.documentSlots.join(', ') || 'none'}; other data:{' '}
            {listing.siteDocumentCapacity.foreignSlots.join(', ') || 'none'}.
          </p>
          <form onSubmit={create} aria-labelledby="documents-new-title">
            <h3 id="documents-new-title">New document</h3>
            <label htmlFor="documents-new-name">Name (a-z, 0-9, '-', '_' and '.', at most 32)</label>
            <input
              id="documents-new-name"
              value={newName}
              onChange={(event) => setNewName(event.target.value)}
              autoComplete="off"
            />
            <button type="submit">New document</button>
          </form>
        </>
      )}

      {editing && (
        <form onSubmit={submit.onSubmit} aria-labelledby="editor-title" className="editor">
          <h3 id="editor-title">
            {editing.name}: {editing.version === 0 ? 'new' : `version ${editing.version}`}
          </h3>
          <label htmlFor="document-json">The document (JSON)</label>
          <textarea
            id="document-json"
            ref={editor}
            rows={16}
            spellCheck={false}
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-invalid={!checked.ok}
            aria-describedby="document-json-check"
          />
          {checked.ok ? (
            <p id="document-json-check" className={size?.fits === false ? 'message error' : 'hint'}>
              Valid JSON. {size?.text}
            </p>
          ) : (
            <p id="document-json-check" className="message error">
              Not valid JSON at line {checked.line}, column {checked.column}: {checked.message}
            </p>
          )}
          {conflict !== null && (
            <div className="conflict" role="alert">
              <p>
                <strong>Version conflict.</strong>{' '}
                {conflict === 0
                  ? `${editing.name} was deleted meanwhile`
                  : `${editing.name} is at version ${conflict} now`}
                , not {editing.version === 0 ? 'absent' : `version ${editing.version}`} as when you opened it: someone
                else saved it. Nothing was written.
              </p>
              {conflict > 0 && (
                <button type="button" disabled={busy} onClick={() => void open(editing.name)}>
                  Reload version {conflict} (replaces your text: copy it first to keep it)
                </button>
              )}
            </div>
          )}
          <div className="buttons">
            <button type="submit" disabled={busy}>
              Save
            </button>
            <button
              type="button"
              className="link"
              disabled={!checked.ok}
              onClick={() => checked.ok && setText(JSON.stringify(checked.value, null, 2))}
            >
              Format
            </button>
            {editing.version > 0 && (
              <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
                Delete {editing.name}
              </button>
            )}
            <button type="button" className="link" onClick={() => setEditing(null)}>
              Close
            </button>
          </div>
        </form>
      )}
      <Message text={submit.message} error={submit.failed} />
    </section>
  );
}
