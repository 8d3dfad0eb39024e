/* global document, fetch, AbortController, TextDecoderStream */
// The checkout page: creates a payment request for an order, shows the VBAN and the
// reference, and listens to paymentReceived over graphql-sse (distinct connections
// mode: one POST whose answer is an event stream, read with fetch).
'use strict';

const GRAPHQL = '/graphql';
const STREAM = '/graphql/stream';

const CREATE = `mutation Checkout($input: CreatePaymentRequestInput!) {
  createPaymentRequest(input: $input) { reference vban amount status }
}`;
const ACCOUNTS = `query CheckoutAccounts($id: ID!) { factory(id: $id) { bankAccounts { id vban } } }`;
const EVENTS = `subscription CheckoutPayments($factoryId: ID!) {
  paymentReceived(factoryId: $factoryId) { kind request { reference status paidAmount amount } }
}`;

const $ = (id) => document.getElementById(id);

async function graphql(key, query, variables) {
  const response = await fetch(GRAPHQL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data;
}

/** Calls onEvent with each result of a subscription over graphql-sse; returns a function that stops it. */
function subscribe(key, query, variables, onEvent) {
  const controller = new AbortController();
  (async () => {
    const response = await fetch(STREAM, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
      signal: controller.signal,
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: *(.*)$/m.exec(message)?.[1];
        const data = /^data: *(.*)$/m.exec(message)?.[1];
        if (event === 'next' && data) onEvent(JSON.parse(data));
      }
    }
  })().catch((error) => {
    if (!controller.signal.aborted) $('error').textContent = `Lost the event stream: ${error.message}`;
  });
  return () => controller.abort();
}

function show(request) {
  $('status').textContent = request.status;
  $('paid').textContent = request.paidAmount ? `(${request.paidAmount} of ${request.amount} received)` : '';
  document.body.classList.toggle('paid', request.status === 'PAID' || request.status === 'OVERPAID');
  document.body.classList.toggle('partial', request.status === 'PARTIALLY_PAID');
}

$('order').addEventListener('submit', async (submit) => {
  submit.preventDefault();
  $('error').textContent = '';
  const key = $('key').value.trim();
  const factoryId = $('factory').value.trim();
  try {
    let bankAccountId = $('account').value.trim();
    if (!bankAccountId) {
      const data = await graphql(key, ACCOUNTS, { id: factoryId });
      bankAccountId = data.factory?.bankAccounts?.[0]?.id ?? '';
      $('account').value = bankAccountId;
    }
    // Listen first, so that no event can come between the request and the subscription.
    let reference = null;
    subscribe(key, EVENTS, { factoryId }, (result) => {
      const event = result.data?.paymentReceived;
      if (event && event.request.reference === reference) show(event.request);
    });
    const data = await graphql(key, CREATE, {
      input: {
        factoryId,
        bankAccountId,
        amount: Number($('amount').value),
        note: $('note').value || null,
        expiresInSeconds: 3600,
      },
    });
    const request = data.createPaymentRequest;
    reference = request.reference;
    $('amount-shown').textContent = String(request.amount);
    $('vban').textContent = request.vban;
    $('reference').textContent = request.reference.replace(/^(.{4})/, '$1 ');
    $('payment').hidden = false;
    $('order').hidden = true;
    show({ ...request, paidAmount: 0 });
  } catch (error) {
    $('error').textContent = error.message;
  }
});
