/* global fetch, setTimeout */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script, runnable with node as it is */
'use strict';
/**
 * site-document-upload: uploads a JSON file as a site document (setSiteDocument) of one
 * company, through the gateway, and prints what the write took.
 *
 *   GATEWAY_URL=http://127.0.0.1:4000/graphql STATEV_API_KEY=demo-premium-key STATEV_API_SECRET=demo-premium-secret \
 *   node examples/site-document-upload/upload.js <factoryId> <name> <file.json> [--expected-version N] [--wait SECONDS] [--retries N]
 *
 * The secret goes in the X-Api-Secret header, never on the command line. `--wait` sends
 * `Prefer: wait=N` (the gateway caps it at UPSTREAM_PATIENCE_MAX_MS): a write that needs
 * more of the key's budget than that goes on in the background, and the script says when
 * it should be committed. When the key's budget is spent (e.g. its website was just viewed)
 * the gateway answers RATE_LIMITED with retryAfterSeconds: the script waits that long and
 * tries again, `--retries` times (default 3; 0 never). Exit status 0 on success, 1 on an
 * error. See README.md.
 */
const { readFileSync } = require('node:fs');

const MUTATION = `mutation Upload($input: SetSiteDocumentInput!) {
  setSiteDocument(input: $input) {
    upstreamWrites
    committed
    retryAfterSeconds
    document { name version bytes slots sha256 }
  }
}`;

/** Reads the command line: positional factory id, name and file; `--expected-version N`, `--wait N`. */
function parseArgs(argv) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--expected-version' || arg === '--wait' || arg === '--retries') {
      const value = Number(argv[i + 1]);
      if (!Number.isInteger(value) || value < 0) throw new Error(`${arg} needs a whole number ≥ 0`);
      options[{ '--wait': 'waitSeconds', '--retries': 'retries', '--expected-version': 'expectedVersion' }[arg]] =
        value;
      i += 1;
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 3)
    throw new Error(
      'usage: upload.js <factoryId> <name> <file.json> [--expected-version N] [--wait SECONDS] [--retries N]',
    );
  const [factoryId, name, file] = positional;
  return { factoryId, name, file, ...options };
}

/**
 * Uploads `file` as the site document `name` of `factoryId`.
 *
 * @param {{gatewayUrl: string, apiKey: string, apiSecret: string, factoryId: string, name: string, file: string,
 *          expectedVersion?: number, waitSeconds?: number}} options
 * @returns {Promise<{upstreamWrites: number, committed: boolean, retryAfterSeconds: number|null, document: object}>}
 * @throws Error with the gateway's message and code (e.g. CONFLICT, SITE_DOCUMENT_TOO_LARGE, BAD_USER_INPUT,
 *         RATE_LIMITED); its `code` and `retryAfterSeconds` properties carry the error's
 */
async function upload(options) {
  const value = JSON.parse(readFileSync(options.file, 'utf8'));
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${options.apiKey}`,
    'x-api-secret': options.apiSecret,
  };
  if (options.waitSeconds !== undefined) headers.prefer = `wait=${options.waitSeconds}`;
  const input = { factoryId: options.factoryId, name: options.name, value };
  if (options.expectedVersion !== undefined) input.expectedVersion = options.expectedVersion;
  const response = await fetch(options.gatewayUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: MUTATION, variables: { input } }),
  });
  const body = await response.json();
  const error = body.errors && body.errors[0];
  if (error) {
    const extensions = error.extensions || {};
    const detail = Object.entries(extensions)
      .filter(([key]) => key !== 'code' && key !== 'http')
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(' ');
    throw Object.assign(new Error(`${extensions.code || 'ERROR'}: ${error.message}${detail ? ` (${detail})` : ''}`), {
      code: extensions.code,
      retryAfterSeconds: typeof extensions.retryAfterSeconds === 'number' ? extensions.retryAfterSeconds : null,
    });
  }
  return body.data.setSiteDocument;
}

/**
 * {@link upload}, trying again after the gateway's `retryAfterSeconds` when the key's budget
 * is spent (`RATE_LIMITED`), at most `retries` times (default 3).
 *
 * @param {object} options - as {@link upload}, plus `retries`
 * @param {{sleep?: (ms: number) => Promise<void>, onWait?: (seconds: number, error: Error) => void}} [hooks]
 * @returns what {@link upload} returns
 * @throws the last error, or any other at once
 */
async function uploadPatiently(options, hooks = {}) {
  const sleep = hooks.sleep || ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let tries = 0; ; tries += 1) {
    try {
      return await upload(options);
    } catch (error) {
      const retryable = error && error.code === 'RATE_LIMITED' && typeof error.retryAfterSeconds === 'number';
      if (!retryable || tries >= (options.retries === undefined ? 3 : options.retries)) throw error;
      if (hooks.onWait) hooks.onWait(error.retryAfterSeconds, error);
      await sleep(error.retryAfterSeconds * 1000);
    }
  }
}

/** One line a person reads. */
function describe(result) {
  const { document } = result;
  const state = result.committed
    ? 'committed'
    : `writing in the background, committed in about ${result.retryAfterSeconds} s`;
  return `${document.name} v${document.version}: ${document.bytes} bytes in slots ${document.slots.join(', ')}; ${result.upstreamWrites} upstream writes; ${state}`;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const apiKey = process.env.STATEV_API_KEY;
  const apiSecret = process.env.STATEV_API_SECRET;
  if (!apiKey || !apiSecret) throw new Error('set STATEV_API_KEY and STATEV_API_SECRET');
  const result = await uploadPatiently(
    { gatewayUrl: process.env.GATEWAY_URL || 'http://127.0.0.1:4000/graphql', apiKey, apiSecret, ...options },
    { onWait: (seconds, error) => console.log(`${error.message.split(' (')[0]}; trying again in ${seconds} s`) },
  );
  console.log(describe(result));
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

module.exports = { upload, uploadPatiently, describe, parseArgs };
