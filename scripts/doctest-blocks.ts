/**
 * The documentation's code blocks and their doctest markers (the parser of `npm run doctest`,
 * scripts/doctest.ts; test/docs/doctest-blocks.test.ts checks every page with it in `npm test`).
 *
 * Every fenced block in a shell or JavaScript language (see {@link DOCTEST_LANGUAGES}) of
 * README.md, docs/*.md and examples/* /README.md is run by the harness, in the order of the page,
 * against a demo of the page's own, unless a marker says `skip` with a reason. Markers are HTML
 * comments (invisible on GitHub) on the lines right before the block's fence (blank lines and
 * other comments may sit between them), one directive each:
 *
 *   <!-- doctest: skip needs the real StateV API -->        not run; the reason is required
 *   <!-- doctest: expect Preference-Applied: wait=8 -->      the output (stdout and stderr) holds this text
 *   <!-- doctest: expect-json data.factories -->             stdout is JSON with this path non-null (arrays non-empty)
 *   <!-- doctest: expect-json !errors -->                    ... and without this one
 *   <!-- doctest: expect-shape -->                           stdout has the shape of the page's next json block
 *   <!-- doctest: background until Max 24/7 -->              left running until the page ends; waits for the text
 *   <!-- doctest: env STATEV_KEY=demo-premium-key -->        environment of this block (and, exported, the next)
 *   <!-- doctest: replace tok_5d2a9c1e0b7f => "$TOKEN_ID" --> text replaced in the block before it runs
 *   <!-- doctest: timeout 60 -->                             seconds the block may take (default 30)
 *
 * and, anywhere in a page, for the page's demo:
 *
 *   <!-- doctest-page: demo-env SIMULATOR_RATE_LIMIT=off (reason) -->
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The fence languages the harness runs (or needs a `skip` for). */
export const DOCTEST_LANGUAGES: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'shell',
  'js',
  'javascript',
  'mjs',
  'cjs',
  'ts',
  'typescript',
]);

/** What a block's markers ask for. */
export interface BlockMarkers {
  /** Why the block is not run; undefined when it is run. */
  skip?: string;
  /** Texts the block's output must contain. */
  expect: string[];
  /** JSON paths of stdout that must be present (`!path`: absent). */
  expectJson: string[];
  /**
   * The text of the page's next `json` block (the answer the page shows), when the block has
   * `expect-shape`: stdout must have its keys and value types (see the harness).
   */
  shape?: string;
  /** Left running (killed when the page ends); `until`: the text to wait for, if any. */
  background?: { until?: string };
  /** Extra environment of the block. */
  env: Record<string, string>;
  /** Text replacements applied to the block, in order. */
  replace: Array<{ from: string; to: string }>;
  /** Seconds the block may take (a background block: to print its `until` text). */
  timeoutSeconds: number;
}

/** One fenced block of a page. */
export interface DocBlock {
  /** The page, relative to the repository root. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's language, lower case (`sh`, `js`, `ts` ...). */
  lang: string;
  /** The block's text, its fence's indentation removed. */
  code: string;
  markers: BlockMarkers;
}

/** A page's blocks in the harness's languages, its demo's extra environment and any marker errors. */
export interface DocPage {
  page: string;
  blocks: DocBlock[];
  demoEnv: Record<string, string>;
  /** Marker problems (`page:line: message`); a page with any fails the check. */
  errors: string[];
}

const DEFAULT_TIMEOUT_SECONDS = 30;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
const COMMENT = /^\s*<!--([\s\S]*?)-->\s*$/;

/** The pages the harness covers: README.md, docs/*.md and examples/* /README.md, sorted. */
export function docPages(root: string): string[] {
  const pages = ['README.md'];
  for (const name of readdirSync(join(root, 'docs')).sort()) if (name.endsWith('.md')) pages.push(`docs/${name}`);
  for (const name of readdirSync(join(root, 'examples')).sort()) {
    if (existsSync(join(root, 'examples', name, 'README.md'))) pages.push(`examples/${name}/README.md`);
  }
  return pages.filter((page) => existsSync(join(root, page)));
}

function parseAssignments(text: string, into: Record<string, string>): string | undefined {
  for (const word of text.trim().split(/\s+/)) {
    if (word.startsWith('(') || word === '—' || word === '-') break; // the reason that follows
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
    if (!match) return `expected NAME=value, got "${word}"`;
    into[match[1]!] = match[2]!;
  }
  return Object.keys(into).length === 0 ? 'expected at least one NAME=value' : undefined;
}

function applyDirective(markers: BlockMarkers, text: string): string | undefined {
  const match = /^([a-z-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return `malformed doctest marker "${text.trim()}"`;
  const name = match[1]!;
  const arg = (match[2] ?? '').trim();
  switch (name) {
    case 'skip':
      if (!arg) return 'doctest: skip needs a reason';
      markers.skip = arg;
      return undefined;
    case 'expect':
      if (!arg) return 'doctest: expect needs a text';
      markers.expect.push(arg);
      return undefined;
    case 'expect-json':
      if (!/^!?[\w$]+(\.[\w$]+)*$/.test(arg))
        return `doctest: expect-json needs a path like data.factories, got "${arg}"`;
      markers.expectJson.push(arg);
      return undefined;
    case 'expect-shape':
      if (arg) return `doctest: expect-shape takes nothing (it compares with the next json block), got "${arg}"`;
      markers.shape = '';
      return undefined;
    case 'background': {
      if (arg === '') markers.background = {};
      else if (arg.startsWith('until ') && arg.slice(6).trim()) markers.background = { until: arg.slice(6).trim() };
      else return `doctest: background takes nothing or "until <text>", got "${arg}"`;
      return undefined;
    }
    case 'env':
      return parseAssignments(arg, markers.env);
    case 'replace': {
      const at = arg.indexOf(' => ');
      if (at <= 0) return `doctest: replace needs "<from> => <to>", got "${arg}"`;
      markers.replace.push({ from: arg.slice(0, at), to: arg.slice(at + 4) });
      return undefined;
    }
    case 'timeout': {
      const seconds = Number(arg);
      if (!Number.isInteger(seconds) || seconds <= 0) return `doctest: timeout needs whole seconds, got "${arg}"`;
      markers.timeoutSeconds = seconds;
      return undefined;
    }
    default:
      return `unknown doctest directive "${name}"`;
  }
}

/** Parses one page's text: its blocks in {@link DOCTEST_LANGUAGES}, their markers, and errors. */
export function parsePage(page: string, text: string): DocPage {
  const lines = text.split('\n');
  const result: DocPage = { page, blocks: [], demoEnv: {}, errors: [] };
  let pending: { line: number; text: string }[] = []; // doctest comments since the last content line
  let wantsShape: DocBlock | undefined; // a block with expect-shape, before its json block
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = COMMENT.exec(line);
    if (comment) {
      const body = comment[1]!.trim();
      if (body.startsWith('doctest-page:')) {
        const rest = body.slice('doctest-page:'.length).trim();
        if (!rest.startsWith('demo-env '))
          result.errors.push(`${page}:${i + 1}: unknown doctest-page directive "${rest}"`);
        else {
          const problem = parseAssignments(rest.slice('demo-env '.length), result.demoEnv);
          if (problem) result.errors.push(`${page}:${i + 1}: doctest-page: demo-env: ${problem}`);
        }
      } else if (body.startsWith('doctest:')) pending.push({ line: i + 1, text: body.slice('doctest:'.length) });
      continue;
    }
    if (line.trim() === '') continue;
    const fence = FENCE.exec(line);
    if (!fence) {
      for (const marker of pending)
        result.errors.push(`${page}:${marker.line}: a doctest marker must come right before a code block`);
      pending = [];
      continue;
    }
    const [, indent, ticks, rawLang] = fence as unknown as [string, string, string, string];
    const lang = rawLang.toLowerCase();
    const body: string[] = [];
    let end = i + 1;
    for (; end < lines.length; end++) {
      const closing = lines[end]!;
      if (closing.trim().startsWith(ticks) && closing.trim().replace(/[`~]/g, '') === '') break;
      body.push(closing.startsWith(indent) ? closing.slice(indent.length) : closing.trimStart());
    }
    if (wantsShape && (lang === 'json' || DOCTEST_LANGUAGES.has(lang))) {
      if (lang === 'json') {
        wantsShape.markers.shape = body.join('\n');
        try {
          JSON.parse(wantsShape.markers.shape);
        } catch (error) {
          result.errors.push(
            `${page}:${i + 1}: doctest: expect-shape: the json block does not parse (${(error as Error).message})`,
          );
        }
      } else
        result.errors.push(
          `${page}:${wantsShape.line}: doctest: expect-shape: no json block before the next code block`,
        );
      wantsShape = undefined;
    }
    if (DOCTEST_LANGUAGES.has(lang)) {
      const markers: BlockMarkers = {
        expect: [],
        expectJson: [],
        env: {},
        replace: [],
        timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      };
      for (const marker of pending) {
        const problem = applyDirective(markers, marker.text);
        if (problem) result.errors.push(`${page}:${marker.line}: ${problem}`);
      }
      if (
        markers.skip !== undefined &&
        (markers.expect.length || markers.expectJson.length || markers.background || markers.shape !== undefined)
      ) {
        result.errors.push(`${page}:${i + 1}: a skipped block takes no expect or background marker`);
      }
      result.blocks.push({ page, line: i + 1, lang, code: body.join('\n'), markers });
      if (markers.shape !== undefined) wantsShape = result.blocks.at(-1);
    } else {
      for (const marker of pending)
        result.errors.push(
          `${page}:${marker.line}: a doctest marker before a ${lang || 'plain'} block, which the harness does not run`,
        );
    }
    pending = [];
    i = end;
  }
  for (const marker of pending)
    result.errors.push(`${page}:${marker.line}: a doctest marker at the end of the page, before no block`);
  if (wantsShape) result.errors.push(`${page}:${wantsShape.line}: doctest: expect-shape: no json block follows`);
  return result;
}

/** A line `[NAME=value ...] [npm ci &&] npm run demo`: the harness starts the page's demo for it. */
export const DEMO_LINE = /^\s*((?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*)(?:npm ci\s*&&\s*)?npm run demo\b.*$/;

/**
 * Why the harness must not run a block that is not skipped (it would change the checkout the
 * harness runs from, e.g. `npm ci` replacing node_modules under the running demo), or undefined.
 * A demo line ({@link DEMO_LINE}) is fine: the harness starts its own demo for it.
 */
export function unsafeToRun(block: DocBlock): string | undefined {
  if (!['sh', 'bash', 'shell'].includes(block.lang)) return undefined;
  const commands = block.code
    .split('\n')
    .filter((line) => !DEMO_LINE.test(line))
    .join('\n');
  const npm = /\bnpm\s+(ci|install|i|uninstall|update|pack|publish|start)\b/.exec(commands);
  return npm
    ? `runs \`npm ${npm[1]}\`, which would change or leave running this checkout: mark the block \`doctest: skip <reason>\``
    : undefined;
}

/** Reads and parses every page of {@link docPages}. */
export function readDocPages(root: string): DocPage[] {
  return docPages(root).map((page) =>
    parsePage(relative(root, join(root, page)), readFileSync(join(root, page), 'utf8')),
  );
}
