// ESLint flat config: typescript-eslint with type information for the promise rules.
import js from '@eslint/js';
import jsdoc from 'eslint-plugin-jsdoc';
import tseslint from 'typescript-eslint';

// Every public member of an exported class or interface, and every export of src/, has a
// doc comment (what it does, its units, its errors): eslint-plugin-jsdoc's require-jsdoc
// with these selectors. Private and protected members (and #private ones) are exempt.
const NOT_PRIVATE =
  ':not([accessibility="private"]):not([accessibility="protected"]):not([key.type="PrivateIdentifier"])';
const DOCUMENTED = [
  // public methods, getters and setters, and properties of exported classes
  `ExportNamedDeclaration > ClassDeclaration > ClassBody > MethodDefinition[kind!="constructor"]${NOT_PRIVATE}`,
  // (a GraphQL field, `@Field`, is documented by its `description` alone: one source, no drift)
  `ExportNamedDeclaration > ClassDeclaration > ClassBody > PropertyDefinition${NOT_PRIVATE}:not(:has(> Decorator[expression.callee.name="Field"]))`,
  // constructor parameter properties (`constructor(readonly hub: PollHub)`): public members too
  'ExportNamedDeclaration > ClassDeclaration > ClassBody > MethodDefinition[kind="constructor"] TSParameterProperty:not([accessibility="private"]):not([accessibility="protected"])',
  // members of exported interfaces
  'ExportNamedDeclaration > TSInterfaceDeclaration > TSInterfaceBody > TSPropertySignature',
  'ExportNamedDeclaration > TSInterfaceDeclaration > TSInterfaceBody > TSMethodSignature',
  // the exports themselves
  'ExportNamedDeclaration > FunctionDeclaration',
  'ExportNamedDeclaration > ClassDeclaration',
  'ExportNamedDeclaration > TSInterfaceDeclaration',
  'ExportNamedDeclaration > TSTypeAliasDeclaration',
  'ExportNamedDeclaration > TSEnumDeclaration',
  'ExportNamedDeclaration[declaration.type="VariableDeclaration"]',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test/generated/**',
      'test/artifacts/**',
      'bench/results/**',
      'examples/**/generated/**',
      '.doctest/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { jsdoc },
    rules: {
      'jsdoc/require-jsdoc': [
        'error',
        { require: { FunctionDeclaration: false }, contexts: DOCUMENTED, enableFixer: false },
      ],
    },
  },
  {
    // Tests that need redis-server or Chromium start them only inside the shared skip helpers
    // (test/support/tools.ts), so that a machine without them skips those tests (with a note)
    // instead of failing, and REQUIRE_REDIS / REQUIRE_BROWSER make them fail.
    files: ['test/**/*.ts'],
    ignores: ['test/support/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Identifier[name="startTestRedis"]:not(ImportSpecifier *):not(CallExpression[callee.name="describeWithRedis"] *)',
          message:
            'Start Redis inside describeWithRedis(name, () => { beforeAll(… startTestRedis() …) }): without redis-server the tests are then skipped with a note, not failed.',
        },
        {
          selector:
            'Identifier[name=/^(launchTestBrowser|useBrowser)$/]:not(ImportSpecifier *):not(CallExpression[callee.name="describeWithBrowser"] *)',
          message:
            'Launch the browser inside describeWithBrowser(name, () => { const browser = useBrowser(); … }): without Chromium the tests are then skipped with a note, not failed.',
        },
        {
          selector:
            'CallExpression[callee.name=/^(spawn|spawnSync|exec|execSync|execFile|execFileSync)$/] > Literal[value=/redis-server|chromium/]',
          message:
            'Start redis-server with startTestRedis() inside describeWithRedis, Chromium with launchTestBrowser() inside describeWithBrowser (test/support).',
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'playwright-core',
              allowTypeImports: true,
              message: 'Launch Chromium with launchTestBrowser() inside describeWithBrowser (test/support/browser.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
  },
);
