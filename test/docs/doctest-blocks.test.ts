/**
 * The doc harness's markers (scripts/doctest-blocks.ts): every shell and JavaScript block of
 * README.md, docs/ and examples/* /README.md is run by `npm run doctest` (.ci/run's doc step) or
 * skipped with a reason, and every marker parses. Running the blocks is the harness's job;
 * this is the fast part that `npm test` checks.
 */
import { join } from 'node:path';
import { docPages, parsePage, readDocPages, unsafeToRun } from '../../scripts/doctest-blocks';

const root = join(__dirname, '..', '..');

describe('the documentation pages', () => {
  const pages = readDocPages(root);

  it('covers README.md, docs/*.md and every example README', () => {
    const names = docPages(root);
    expect(names).toContain('README.md');
    expect(names).toContain('docs/example.md');
    expect(names).toContain('examples/stock-alert/README.md');
    expect(
      names.every(
        (name) => name === 'README.md' || /^docs\/[^/]+\.md$/.test(name) || /^examples\/[^/]+\/README\.md$/.test(name),
      ),
    ).toBe(true);
  });

  it('have only markers that parse, each right before a block', () => {
    expect(pages.flatMap((page) => page.errors)).toEqual([]);
  });

  it('run every shell and JavaScript block or skip it with a reason', () => {
    const blocks = pages.flatMap((page) => page.blocks);
    expect(blocks.length).toBeGreaterThan(40);
    const unaccounted = blocks
      .filter((block) => block.markers.skip === undefined || block.markers.skip.trim() === '')
      .map((block) => [block, unsafeToRun(block)] as const)
      .filter(([, unsafe]) => unsafe !== undefined)
      .map(([block, unsafe]) => `${block.page}:${block.line}: ${unsafe}`);
    expect(unaccounted).toEqual([]);
    for (const block of blocks)
      if (block.markers.skip !== undefined) expect(block.markers.skip.length).toBeGreaterThan(3);
    // Both kinds exist: the harness runs most blocks.
    expect(blocks.filter((block) => block.markers.skip === undefined).length).toBeGreaterThan(20);
  });
});

describe('parsePage', () => {
  const page = (text: string) => parsePage('docs/x.md', text);

  it('runs an unmarked block and applies the markers before a block, across blank lines and other comments', () => {
    const parsed = page(
      [
        '# Title',
        '```sh',
        'echo plain',
        '```',
        '<!-- doctest: expect hello -->',
        '<!-- readme-curl: another tool -->',
        '',
        '<!-- doctest: expect-json data.factories -->',
        '<!-- doctest: expect-json !errors -->',
        '<!-- doctest: env A=1 B=two -->',
        '<!-- doctest: replace KEY => demo-premium-key -->',
        '<!-- doctest: timeout 45 -->',
        '```bash',
        'curl KEY',
        '```',
        '- a list item:',
        '  <!-- doctest: background until Max 24/7 -->',
        '  ```js',
        '  console.log(1);',
        '    nested();',
        '  ```',
        '<!-- doctest: skip needs the real StateV API -->',
        '```ts',
        'await x;',
        '```',
      ].join('\n'),
    );
    expect(parsed.errors).toEqual([]);
    expect(parsed.blocks.map((block) => [block.line, block.lang, block.code])).toEqual([
      [2, 'sh', 'echo plain'],
      [13, 'bash', 'curl KEY'],
      [18, 'js', 'console.log(1);\n  nested();'],
      [23, 'ts', 'await x;'],
    ]);
    const [plain, curl, js, ts] = parsed.blocks;
    expect(plain!.markers).toMatchObject({ expect: [], expectJson: [], env: {}, replace: [], timeoutSeconds: 30 });
    expect(plain!.markers.skip).toBeUndefined();
    expect(curl!.markers).toMatchObject({
      expect: ['hello'],
      expectJson: ['data.factories', '!errors'],
      env: { A: '1', B: 'two' },
      replace: [{ from: 'KEY', to: 'demo-premium-key' }],
      timeoutSeconds: 45,
    });
    expect(js!.markers.background).toEqual({ until: 'Max 24/7' });
    expect(ts!.markers.skip).toBe('needs the real StateV API');
  });

  it('reads the page-level demo environment', () => {
    expect(
      page(
        '<!-- doctest-page: demo-env SIMULATOR_RATE_LIMIT=off UPSTREAM_RATE_LIMIT=off (the page counts no budget) -->\n',
      ).demoEnv,
    ).toEqual({
      SIMULATOR_RATE_LIMIT: 'off',
      UPSTREAM_RATE_LIMIT: 'off',
    });
  });

  it.each([
    ['a skip without a reason', '<!-- doctest: skip -->\n```sh\nls\n```', 'skip needs a reason'],
    ['an unknown directive', '<!-- doctest: sometimes -->\n```sh\nls\n```', 'unknown doctest directive "sometimes"'],
    [
      'a marker before text',
      '<!-- doctest: expect x -->\nSome text.\n```sh\nls\n```',
      'must come right before a code block',
    ],
    [
      'a marker before a block the harness does not run',
      '<!-- doctest: expect x -->\n```json\n{}\n```',
      'before a json block',
    ],
    ['a marker at the end', 'text\n<!-- doctest: expect x -->\n', 'at the end of the page'],
    ['a malformed path', '<!-- doctest: expect-json data..x -->\n```sh\nls\n```', 'expect-json needs a path'],
    ['a replace without =>', '<!-- doctest: replace a b -->\n```sh\nls\n```', 'replace needs'],
    ['a bad timeout', '<!-- doctest: timeout soon -->\n```sh\nls\n```', 'timeout needs whole seconds'],
    ['an env without NAME=value', '<!-- doctest: env A -->\n```sh\nls\n```', 'expected NAME=value'],
    [
      'expect on a skipped block',
      '<!-- doctest: skip why -->\n<!-- doctest: expect x -->\n```sh\nls\n```',
      'a skipped block takes no expect',
    ],
    ['an unknown page directive', '<!-- doctest-page: demo -->\n', 'unknown doctest-page directive'],
  ])('refuses %s', (_name, text, message) => {
    expect(page(text).errors.join('\n')).toContain(message);
  });

  it('gives an expect-shape block the text of the next json block, the answer the page shows', () => {
    const parsed = page(
      '<!-- doctest: expect-shape -->\n```sh\ncurl x\n```\nIt answers:\n```json\n{"data": {"a": [1]}}\n```\n',
    );
    expect(parsed.errors).toEqual([]);
    expect(JSON.parse(parsed.blocks[0]!.markers.shape!)).toEqual({ data: { a: [1] } });
    expect(
      page('<!-- doctest: expect-shape -->\n```sh\ncurl x\n```\n```sh\nls\n```\n```json\n{}\n```').errors.join(),
    ).toContain('no json block before the next code block');
    expect(page('<!-- doctest: expect-shape -->\n```sh\ncurl x\n```\n').errors.join()).toContain(
      'no json block follows',
    );
    expect(page('<!-- doctest: expect-shape -->\n```sh\ncurl x\n```\n```json\n"a": 1\n```').errors.join()).toContain(
      'does not parse',
    );
  });

  it('ignores blocks in other languages, and finds the end of a longer fence', () => {
    const parsed = page('```json\n{"a": 1}\n```\n````sh\n```\ninner\n```\n````\n```graphql\n{ a }\n```\n');
    expect(parsed.errors).toEqual([]);
    expect(parsed.blocks.map((block) => block.code)).toEqual(['```\ninner\n```']);
  });
});

describe('unsafeToRun', () => {
  const sh = (code: string) => ({
    page: 'x.md',
    line: 1,
    lang: 'sh',
    code,
    markers: { expect: [], expectJson: [], env: {}, replace: [], timeoutSeconds: 30 },
  });

  it('refuses blocks that would change the checkout or start the real gateway', () => {
    expect(unsafeToRun(sh('npm ci && npm test'))).toContain('npm ci');
    expect(unsafeToRun(sh('npm install --omit=dev ./x.tgz'))).toContain('npm install');
    expect(unsafeToRun(sh('npm ci && npm start'))).toContain('npm ci');
    expect(unsafeToRun(sh('PORT=4001 npm start'))).toContain('npm start');
  });

  it('lets demo lines through (the harness starts its own demo) and other commands', () => {
    expect(unsafeToRun(sh('npm ci && npm run demo'))).toBeUndefined();
    expect(unsafeToRun(sh('SIMULATOR_RATE_LIMIT=off CACHE_FILE=off npm run demo   # here\ncurl -s x'))).toBeUndefined();
    expect(unsafeToRun({ ...sh('npm ci'), lang: 'js' })).toBeUndefined();
  });
});
