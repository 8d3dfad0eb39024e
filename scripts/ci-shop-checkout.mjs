/* global fetch, AbortController, TextDecoderStream, setTimeout, clearTimeout */
// examples/shop-checkout as its README documents it, against a running demo (.ci/run's demo
// step runs this through scripts/ci-shop-checkout.sh; by hand, from the repository root, with
// `npm run demo` running: node scripts/ci-shop-checkout.mjs 4000 4010).
// It loads the page and its script from the gateway, then does what the page does when its
// form is sent with the values it ships: the company's first bank account, the
// paymentReceived stream (graphql-sse, distinct connections), createPaymentRequest, with the
// page's own documents read out of checkout.js. Then it books the transfer with the README's
// curl (the reference written as a customer would, lowercase with a dash) and waits for the
// PAID event, at most 90 s (one poll interval is 60 s). Exit status 1 on any failure.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [gatewayPort = '4000', simulatorPort = '4010'] = process.argv.slice(2);
const base = `http://127.0.0.1:${gatewayPort}`;
const fail = (message) => {
  console.log(`examples/shop-checkout: ${message}`);
  process.exit(1);
};

const page = await (await fetch(`${base}/examples/shop-checkout/`)).text();
if (!page.includes('<script src="checkout.js"')) fail('the page is not served at /examples/shop-checkout/');
const script = await (await fetch(`${base}/examples/shop-checkout/checkout.js`)).text();
const documentOf = (name) =>
  new RegExp(`const ${name} = \`([^\`]*)\``).exec(script)?.[1] ?? fail(`checkout.js has no ${name} document`);
const valueOf = (id) =>
  new RegExp(`id="${id}" [^>]*value="([^"]*)"`).exec(page)?.[1] ?? fail(`the page has no ${id} field`);
const key = valueOf('key');
const factoryId = valueOf('factory');

async function graphql(query, variables) {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors?.length) fail(body.errors.map((e) => e.message).join('; '));
  return body.data;
}

const accounts = await graphql(documentOf('ACCOUNTS'), { id: factoryId });
const bankAccountId = accounts.factory?.bankAccounts?.[0]?.id ?? fail('the company has no bank account');

// Listen first, as the page does.
const controller = new AbortController();
const stream = await fetch(`${base}/graphql/stream`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}` },
  body: JSON.stringify({ query: documentOf('EVENTS'), variables: { factoryId } }),
  signal: controller.signal,
});
if (!stream.ok) fail(`the event stream answered ${stream.status}`);
let reference = null;
const paid = (async () => {
  const reader = stream.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) fail('the event stream ended');
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: *(.*)$/m.exec(message)?.[1];
      const event =
        /^event: *(.*)$/m.exec(message)?.[1] === 'next' && data ? JSON.parse(data).data?.paymentReceived : undefined;
      if (event && event.request.reference === reference) {
        console.log(
          `examples/shop-checkout: ${event.kind}, ${event.request.status} (${event.request.paidAmount} of ${event.request.amount})`,
        );
        if (event.request.status === 'PAID') return;
      }
    }
  }
})();

const created = (
  await graphql(documentOf('CREATE'), {
    input: {
      factoryId,
      bankAccountId,
      amount: Number(valueOf('amount')),
      note: valueOf('note'),
      expiresInSeconds: 3600,
    },
  })
).createPaymentRequest;
reference = created.reference;
console.log(
  `examples/shop-checkout: pay ${created.amount} to VBAN ${created.vban}, reference ${reference.replace(/^(.{4})/, '$1 ')}`,
);

// The README's curl: its second sh block, the placeholders filled in as a reader would.
const readme = readFileSync('examples/shop-checkout/README.md', 'utf8');
const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
const curl = (blocks[1] ?? fail('the README has no transfer block'))
  .replace('<the bank account id>', bankAccountId)
  .replace(/"amount":\d+/, `"amount":${created.amount}`)
  .replace(
    /order [a-z0-9]{4}-[a-z0-9]{4}/,
    `order ${reference.slice(0, 4).toLowerCase()}-${reference.slice(4).toLowerCase()}`,
  )
  .replaceAll('localhost:4010', `127.0.0.1:${simulatorPort}`);
if (curl.includes('k7m2')) fail('the README curl has no reference to replace');
console.log(curl.trim());
execFileSync('bash', ['-c', curl], { stdio: ['ignore', 'ignore', 'inherit'] });
const booked = Date.now();

const timeout = setTimeout(() => fail('no PAID event within 90 s of the transfer'), 90_000);
await paid;
clearTimeout(timeout);
controller.abort();
console.log(`examples/shop-checkout: PAID ${((Date.now() - booked) / 1000).toFixed(1)} s after the transfer`);
process.exit(0);
