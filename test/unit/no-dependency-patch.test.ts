/**
 * No run-time patch of a dependency: nothing in src/ loads a path
 * inside an installed package that the package does not export (`pkg/sub/path` missing
 * from its package.json `exports`, a `require` of a computed path outside src/, a
 * `require.resolve` other than a package's `package.json`, which locates the static files
 * the playground serves), and nothing assigns to a module object it imported. The scan
 * reads every source file's syntax tree (TypeScript's parser); a snippet of each forbidden
 * pattern (what src/graph/gateway-request-context.ts did to Apollo Server) must be flagged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every string leaf of a package's `exports` (its files), and its subpath keys. */
function exportsOf(name: string): { keys: string[]; files: string[] } | null {
  let manifest: { exports?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      exports?: unknown;
    };
  } catch {
    return null;
  }
  const files: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') files.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  const keys =
    manifest.exports &&
    typeof manifest.exports === 'object' &&
    Object.keys(manifest.exports).every((key) => key.startsWith('.'))
      ? Object.keys(manifest.exports)
      : ['.'];
  return { keys, files };
}

/** Whether `subpath` (`./x/y`) is one a package exports (`*` patterns included), or, in a declaration file, the file one of its exports names. */
function exported(name: string, subpath: string, declaration: boolean): boolean {
  const exports = exportsOf(name);
  if (!exports) return false;
  if (
    exports.keys.some(
      (key) => key === subpath || (key.includes('*') && subpath.startsWith(key.slice(0, key.indexOf('*')))),
    )
  )
    return true;
  const bare = (file: string): string => file.replace(/\.(d\.)?[cm]?[jt]s$/, '');
  return declaration && exports.files.some((file) => bare(file) === bare(subpath));
}

/** The package name and subpath of a bare specifier, or null for a relative one or a Node built-in. */
function packageOf(specifier: string): { name: string; subpath: string } | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return null;
  const parts = specifier.split('/');
  const count = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(count).join('/');
  return { name: parts.slice(0, count).join('/'), subpath: rest === '' ? '.' : `./${rest}` };
}

/** The problems of one file's text: each a line "file:line what". */
function scan(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const declaration = file.endsWith('.d.ts');
  const problems: string[] = [];
  const modules = new Set<string>();
  const flag = (node: ts.Node, what: string): void => {
    problems.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  };
  const checkSpecifier = (node: ts.Node, specifier: string): void => {
    if (specifier.includes('node_modules')) flag(node, `loads a path inside node_modules: ${specifier}`);
    const pkg = packageOf(specifier);
    if (pkg && !exported(pkg.name, pkg.subpath, declaration))
      flag(node, `loads ${specifier}, which ${pkg.name} does not export`);
  };
  const literal = (node: ts.Node | undefined): string | null =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : null;
  const rootOf = (node: ts.Expression): ts.Expression => {
    let current = node;
    while (
      ts.isPropertyAccessExpression(current) ||
      ts.isElementAccessExpression(current) ||
      ts.isParenthesizedExpression(current)
    )
      current = current.expression;
    return current;
  };
  const isModuleObject = (node: ts.Expression): boolean => {
    const base = rootOf(node);
    return ts.isIdentifier(base) && modules.has(base.text);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== null) checkSpecifier(node, specifier);
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      if (clause && !clause.isTypeOnly) {
        if (clause.name) modules.add(clause.name.text);
        if (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings))
          modules.add(clause.namedBindings.name.text);
      }
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const specifier = literal(node.moduleReference.expression);
      if (specifier !== null) checkSpecifier(node, specifier);
      modules.add(node.name.text);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isResolve =
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        callee.expression.text === 'require' &&
        callee.name.text === 'resolve';
      const [argument] = node.arguments;
      if (isRequire || isImport) {
        const specifier = literal(argument);
        if (specifier !== null) checkSpecifier(node, specifier);
        // A computed path is the gateway's own files only: rooted at __dirname.
        else if (!(
          argument &&
          ts.isCallExpression(argument) &&
          argument.arguments[0] !== undefined &&
          ts.isIdentifier(argument.arguments[0]) &&
          argument.arguments[0].text === '__dirname'
        )) {
          flag(
            node,
            `${isRequire ? 'requires' : 'imports'} a computed path outside src/: ${argument?.getText(source) ?? ''}`,
          );
        }
        if (isRequire && ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name))
          modules.add(node.parent.name.text);
      }
      // require.resolve only locates a package's package.json (the playground's static files beside it).
      if (isResolve && !(argument && /\/package\.json['`"]$/.test(argument.getText(source)))) {
        flag(node, `require.resolve of ${argument?.getText(source) ?? ''}`);
      }
      if (
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        callee.expression.text === 'Object' &&
        ['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf'].includes(callee.name.text) &&
        argument &&
        isModuleObject(argument)
      ) {
        flag(node, `changes the imported module object ${rootOf(argument).getText(source)}`);
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const target = node.left;
      if ((ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) && isModuleObject(target))
        flag(node, `assigns to the imported module object ${rootOf(target).getText(source)}`);
    }
    if (ts.isDeleteExpression(node) && isModuleObject(node.expression))
      flag(node, `deletes from the imported module object ${rootOf(node.expression).getText(source)}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

describe('no run-time patch of a dependency', () => {
  it('nothing in src/ loads an unexported path of a package or assigns to an imported module', () => {
    const problems = sourceFiles(join(root, 'src')).flatMap((file) =>
      scan(relative(root, file), readFileSync(file, 'utf8')),
    );
    expect(problems).toEqual([]);
  });

  it("the scan flags each forbidden pattern (what replacing Apollo's makeGatewayGraphQLRequestContext took)", () => {
    const snippet = [
      "import * as graphql from 'graphql';",
      "import apollo from '@apollo/server';",
      "import { execute } from '@apollo/server/dist/cjs/requestPipeline.js';",
      "const pipeline = require('@apollo/server/dist/cjs/utils/makeGatewayGraphQLRequestContext.js');",
      "const directory = dirname(require.resolve('@apollo/server'));",
      "const internal = require(join(directory, 'utils/makeGatewayGraphQLRequestContext.js'));",
      "const deep = require('../node_modules/graphql/execution/execute.js');",
      'pipeline.makeGatewayGraphQLRequestContext = () => null;',
      "graphql['execute'] = execute;",
      'Object.assign(apollo, { ApolloServer: null });',
      'delete graphql.parse;',
    ].join('\n');
    const flagged = scan('src/example.ts', snippet).map((problem) => Number(/:(\d+) /.exec(problem)?.[1]));
    expect([...new Set(flagged)].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('the playground locating its static files and the gateway loading its own files stay allowed', () => {
    const snippet = [
      'const path = join(dirname(require.resolve(`${pkg}/package.json`)), file);',
      'const own = require(join(__dirname, file));',
      "const { startGateway } = await import('./server');",
      "import { useServer } from 'graphql-ws/use/ws';",
      "import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';",
    ].join('\n');
    expect(scan('src/example.ts', snippet)).toEqual([]);
  });
});
