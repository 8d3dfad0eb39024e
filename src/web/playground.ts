import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

/**
 * The GraphiQL playground, served entirely from installed npm packages (graphiql 3's
 * UMD build with React 18's UMD builds, and graphql-ws's UMD build for subscriptions):
 * the page makes no request to any host but the gateway, so it works with no internet access.
 */

function packageFile(pkg: string, file: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), file);
}

/** The playground's assets under `/playground/`, by file name. */
const ASSETS: Readonly<Record<string, { path: string; type: string } | { text: string; type: string }>> = {
  'react.production.min.js': {
    path: packageFile('react', 'umd/react.production.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'react-dom.production.min.js': {
    path: packageFile('react-dom', 'umd/react-dom.production.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'graphiql.min.js': { path: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { path: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css; charset=utf-8' },
  'graphql-ws.min.js': {
    path: packageFile('graphql-ws', 'umd/graphql-ws.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'playground.js': {
    type: 'text/javascript; charset=utf-8',
    // The page's settings (the preset Authorization value) come from the JSON block
    // #playground-settings of the page, so this script is the same for every gateway.
    text: `(function () {
  var params = new URLSearchParams(window.location.search);
  var settings = JSON.parse(document.getElementById('playground-settings').textContent || '{}');
  var httpFetcher = GraphiQL.createFetcher({ url: window.location.origin + '/graphql' });
  // Subscriptions run over graphql-ws (graphql-transport-ws) on the same /graphql, with the
  // Authorization of the Headers tab as connection parameter; one socket per header value.
  var wsUrl = window.location.origin.replace(/^http/, 'ws') + '/graphql';
  var wsClient = null;
  var wsAuthorization = null;
  function socketFor(headers) {
    var authorization = (headers && (headers.Authorization || headers.authorization)) || '';
    if (!wsClient || authorization !== wsAuthorization) {
      if (wsClient) wsClient.dispose();
      wsAuthorization = authorization;
      wsClient = graphqlWs.createClient({ url: wsUrl, connectionParams: authorization ? { authorization: authorization } : {} });
    }
    return wsClient;
  }
  function isSubscription(params) {
    var text = String(params.query || '').replace(/#[^\\n]*/g, '');
    if (params.operationName) return new RegExp('subscription\\\\s+' + params.operationName + '\\\\b').test(text);
    return /(^|\\})\\s*subscription\\b/.test(text);
  }
  function subscribe(params, headers) {
    var queue = [];
    var waiting = [];
    var done = false;
    function settle(result) {
      var waiter = waiting.shift();
      if (waiter) waiter(result); else queue.push(result);
    }
    var dispose = socketFor(headers).subscribe(params, {
      next: function (value) { settle({ value: value, done: false }); },
      error: function (error) {
        var message = error && error.message ? error.message : Array.isArray(error) ? error.map(function (e) { return e.message; }).join('; ') : 'the subscription failed';
        settle({ value: { errors: Array.isArray(error) ? error : [{ message: message }] }, done: false });
        done = true;
        settle({ value: undefined, done: true });
      },
      complete: function () { done = true; settle({ value: undefined, done: true }); }
    });
    var iterator = {
      next: function () {
        if (queue.length) return Promise.resolve(queue.shift());
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (resolve) { waiting.push(resolve); });
      },
      return: function () { dispose(); done = true; return Promise.resolve({ value: undefined, done: true }); }
    };
    iterator[Symbol.asyncIterator] = function () { return iterator; };
    return iterator;
  }
  function fetcher(params, options) {
    return isSubscription(params) ? subscribe(params, options && options.headers) : httpFetcher(params, options);
  }
  var keyHelp = settings.authorization
    ? ['# The Headers tab below already holds the demo premium key.']
    : [
        '# Put your StateV API key in the Headers tab below, as',
        '#   {"Authorization": "Bearer <your key>"}',
        '# (the word Bearer, one space, then the key itself, without < >).',
        '# Without a key only introspection works (the docs, the book icon).'
      ];
  var defaultQuery = ['# StateV GraphQL gateway.'].concat(keyHelp, [
    '# The schema docs (book icon) name the upstream endpoint, scopes and bounds of every field.',
    '{',
    '  factories {',
    '    name',
    '    isOpen',
    '    counter { items { item price amount } }',
    '  }',
    '}',
    ''
  ]).join('\\n');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: defaultQuery,
    query: params.get('query') || undefined,
    defaultHeaders: JSON.stringify({ Authorization: settings.authorization || '' }, null, 2),
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true
  }));
})();
`,
  },
};

/** What the playground page presets. */
export interface PlaygroundSettings {
  /**
   * The API key the Headers tab starts with (`npm run demo` presets the premium demo
   * key); null leaves `Authorization` empty, with a comment in the editor on what to
   * put there. A header the user saved in the browser wins.
   */
  presetApiKey: string | null;
}

function page(settings: PlaygroundSettings): string {
  // `<` is escaped so that no value can close the script element.
  const json = JSON.stringify({
    authorization: settings.presetApiKey ? `Bearer ${settings.presetApiKey}` : '',
  }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>StateV GraphQL playground</title>
  <link rel="stylesheet" href="/playground/graphiql.min.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading the playground…</div>
  <script id="playground-settings" type="application/json">${json}</script>
  <script src="/playground/react.production.min.js"></script>
  <script src="/playground/react-dom.production.min.js"></script>
  <script src="/playground/graphiql.min.js"></script>
  <script src="/playground/graphql-ws.min.js"></script>
  <script src="/playground/playground.js"></script>
</body>
</html>
`;
}

/**
 * True when a GET comes from a browser navigating to the endpoint (`Accept: text/html`):
 * it gets the playground, with `?query=` as its initial query. GraphQL clients ask for
 * JSON and get a GraphQL response.
 */
export function wantsPlayground(method: string | undefined, accept: string | undefined): boolean {
  return method === 'GET' && /\btext\/html\b/i.test(accept ?? '');
}

/** Writes the playground page. */
export function sendPlaygroundPage(res: ServerResponse, settings: PlaygroundSettings = { presetApiKey: null }): void {
  const body = page(settings);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Assets already read, by name. */
const loaded = new Map<string, Buffer>();

/**
 * Writes one playground asset (`/playground/<name>`); false when there is no such asset.
 * Assets are read from the installed packages on first use and kept in memory.
 */
export async function sendPlaygroundAsset(name: string, res: ServerResponse): Promise<boolean> {
  const asset = ASSETS[name];
  if (!asset) return false;
  let body = loaded.get(name);
  if (!body) {
    body = 'text' in asset ? Buffer.from(asset.text) : await readFile(asset.path);
    loaded.set(name, body);
  }
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': body.length,
    'cache-control': 'public, max-age=3600',
  });
  res.end(body);
  return true;
}
