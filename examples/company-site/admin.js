/* global document, window, fetch, URLSearchParams, sessionStorage */
/*
 * The catalogue admin page: reads and writes the company's `catalogue` site document
 * through the gateway with an access token (Authorization: Bearer svg_…). The token may
 * only touch this company (factory:<id>) and write only this document
 * (write:siteDocument:catalogue); the gateway takes the API secret from its vault, so the
 * page never holds a key or a secret. The token is kept for the tab only (sessionStorage).
 * No framework and no build step; values are written with textContent or .value, never as HTML.
 */

const ENDPOINT = '/graphql';
const LOAD = `query AdminCatalogue($id: ID!) {
  viewer { tokenId expiresAt grants }
  factory(id: $id) { id name siteDocument(name: "catalogue") { version value } }
}`;
const SAVE = `mutation SaveCatalogue($input: SetSiteDocumentInput!) {
  setSiteDocument(input: $input) { committed retryAfterSeconds document { version } }
}`;

let loadedVersion = null;

function $(id) {
  return document.getElementById(id);
}

function showMessage(text, isError) {
  const message = $('message');
  message.textContent = text;
  message.classList.toggle('message--error', Boolean(isError));
  message.hidden = false;
}

/** One GraphQL request with the token; resolves to the result, or throws with the gateway's message. */
async function graphql(query, variables) {
  const response = await fetch(ENDPOINT, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      authorization: `Bearer ${$('token').value.trim()}`,
    },
    body: JSON.stringify({ query, variables }),
  });
  const result = await response.json();
  const [error] = result.errors ?? [];
  if (error) {
    const extensions = error.extensions ?? {};
    const grant = extensions.requiredGrant ? ` (this token lacks the grant ${extensions.requiredGrant})` : '';
    // A rate limit says when to try again (retryAfterSeconds): the page says it too, with the time.
    const retry =
      typeof extensions.retryAfterSeconds === 'number'
        ? ` Try again in ${extensions.retryAfterSeconds} s (at ${new Date(Date.now() + extensions.retryAfterSeconds * 1000).toLocaleTimeString()}).`
        : '';
    throw new Error(`${error.message}${grant}${retry}`);
  }
  return result.data;
}

async function load(event) {
  event.preventDefault();
  sessionStorage.setItem('catalogue-admin-token', $('token').value.trim());
  try {
    const data = await graphql(LOAD, { id: $('factory-id').value.trim() });
    if (!data.factory) throw new Error('No such company for this token.');
    const current = data.factory.siteDocument;
    loadedVersion = current ? current.version : null;
    $('company-name').textContent = `${data.factory.name}: catalogue`;
    $('version').textContent = current ? `version ${current.version}` : 'not written yet';
    $('catalogue-json').value = JSON.stringify(current ? current.value : { items: [] }, null, 2);
    $('editor').hidden = false;
    showMessage(`Signed in with token ${data.viewer.tokenId} (expires ${data.viewer.expiresAt}).`, false);
  } catch (error) {
    showMessage(`The catalogue could not be loaded: ${error.message}`, true);
  }
}

async function save(event) {
  event.preventDefault();
  let value;
  try {
    value = JSON.parse($('catalogue-json').value);
  } catch (error) {
    showMessage(`The catalogue is not valid JSON: ${error.message}`, true);
    return;
  }
  try {
    const input = {
      factoryId: $('factory-id').value.trim(),
      name: 'catalogue',
      value,
      ...(loadedVersion === null ? {} : { expectedVersion: loadedVersion }),
    };
    const data = await graphql(SAVE, { input });
    loadedVersion = data.setSiteDocument.document.version;
    $('version').textContent = `version ${loadedVersion}`;
    const later = data.setSiteDocument.retryAfterSeconds
      ? ` (in about ${data.setSiteDocument.retryAfterSeconds} s, when the key's budget has room)`
      : '';
    showMessage(
      data.setSiteDocument.committed
        ? `Saved: version ${loadedVersion}.`
        : `Saving: the gateway finishes the write in the background${later}.`,
      false,
    );
  } catch (error) {
    showMessage(`The catalogue could not be saved: ${error.message}`, true);
  }
}

$('factory-id').value = new URLSearchParams(window.location.search).get('id') ?? '';
$('token').value = sessionStorage.getItem('catalogue-admin-token') ?? '';
$('login').addEventListener('submit', (event) => void load(event));
$('editor').addEventListener('submit', (event) => void save(event));
