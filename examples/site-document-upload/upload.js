/* global fetch */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script, runnable with node as it is */
'use strict';
/**
 * site-document-upload: uploads a JSON file as a site document (setSiteDocument) of one
 * company, through the gateway, and prints what the write took.
 *
 *   GATEWAY_URL=http://127.0.0.1:4000/graphql STATEV_API_KEY=demo-premium-key STATEV_API_SECRET=demo-premium-secret \
 *   node examples/site-document-upload/upload.js <factoryId> <name> <file.json> [--expected-version N] [--wait SECONDS]
 *
 * The secret goes in the X-Api-Secret header, never on the command line. `--wait` sends
 * `Prefer: wait=N` (the gateway caps it at UPSTREAM_PATIENCE_MAX_MS): a write that needs
 * more of the key's budget than that goes on in the background, and the script says when
 * it should be committed. Exit status 0 on success, 1 on an error. See README.md.
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
    if (arg === '--expected-version' || arg === '--wait') {
      const value = Number(argv[i + 1]);
      if (!Number.isInteger(value) || value < 0) throw new Error(`${arg} needs a whole number ≥ 0`);
      options[arg === '--wait' ? 'waitSeconds' : 'expectedVersion'] = value;
      i += 1;
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 3) throw new Error('usage: upload.js <factoryId> <name> <file.json> [--expected-version N] [--wait SECONDS]');
  const [factoryId, name, file] = positional;
  return { factoryId, name, file, ...options };
}

/**
 * Uploads `file` as the site document `name` of `factoryId`.
 *
 * @param {{gatewayUrl: string, apiKey: string, apiSecret: string, factoryId: string, name: string, file: string,
 *          expectedVersion?: number, waitSeconds?: number}} options
 * @returns {Promise<{upstreamWrites: number, committed: boolean, retryAfterSeconds: number|null, document: object}>}
 * @throws Error with the gateway's message and code (e.g. CONFLICT, SITE_DOCUMENT_TOO_LARGE, BAD_USER_INPUT)
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
  const response = await fetch(options.gatewayUrl, { method: 'POST', headers, body: JSON.stringify({ query: MUTATION, variables: { input } }) });
  const body = await response.json();
  const error = body.errors && body.errors[0];
  if (error) {
    const extensions = error.extensions || {};
    const detail = Object.entries(extensions)
      .filter(([key]) => key !== 'code' && key !== 'http')
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(' ');
    throw new Error(`${extensions.code || 'ERROR'}: ${error.message}${detail ? ` (${detail})` : ''}`);
  }
  return body.data.setSiteDocument;
}

/** One line a person reads. */
function describe(result) {
  const { document } = result;
  const state = result.committed ? 'committed' : `writing in the background, committed in about ${result.retryAfterSeconds} s`;
  return `${document.name} v${document.version}: ${document.bytes} bytes in slots ${document.slots.join(', ')}; ${result.upstreamWrites} upstream writes; ${state}`;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const apiKey = process.env.STATEV_API_KEY;
  const apiSecret = process.env.STATEV_API_SECRET;
  if (!apiKey || !apiSecret) throw new Error('set STATEV_API_KEY and STATEV_API_SECRET');
  const result = await upload({ gatewayUrl: process.env.GATEWAY_URL || 'http://127.0.0.1:4000/graphql', apiKey, apiSecret, ...options });
  console.log(describe(result));
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

module.exports = { upload, describe, parseArgs };
