/**
 * A schema-driven fuzzer: random operations built from the gateway's schema with a
 * seeded generator (the same seed gives the same operations), sent over real HTTP to a
 * gateway in front of the simulator. Used by `test/hostile/fuzz.test.ts` (a fixed seed in
 * CI) and by `npm run fuzz` (more operations, any seed).
 *
 * Operations mix: fields and aliases of every type reachable from Query and Mutation,
 * arguments in and out of bounds (also as variables, some undeclared, some mistyped),
 * inline and named fragments (also fragments spreading each other), `@skip`/`@include`,
 * introspection, unknown fields, syntax errors, subscriptions over HTTP, and requests with
 * the premium, basic, an invalid or no key, some with `Cache-Control: no-cache`.
 */
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
} from 'graphql';
import type {
  GraphQLArgument,
  GraphQLField,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
} from 'graphql';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { prng } from '../../src/simulator/live';

/** One generated request. */
export interface FuzzRequest {
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
  headers: Record<string, string>;
}

const IDS = [
  ...Object.values(FIXTURE_IDS),
  'nope',
  '',
  '0'.repeat(24),
  'x'.repeat(300),
  '../../etc/passwd',
  '%2F..',
  '💥',
];
const STRINGS = [
  '',
  'a',
  'Hallo Welt',
  '🥪'.repeat(65),
  'e\u0301'.repeat(40),
  'x'.repeat(2500),
  '"quoted"\\',
  '\u0000\uFFFF',
  '<script>',
];
const INTS = [-2147483648, -1, 0, 1, 2, 5, 10, 11, 25, 26, 50, 51, 200, 201, 1000, 1001, 2147483647];

/** Builds random operations from a schema. */
export class OperationFuzzer {
  private readonly random: () => number;
  private fragmentCount = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    seed: number,
  ) {
    this.random = prng(seed);
  }

  private pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.random() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  /** The next request. */
  next(): FuzzRequest {
    const headers: Record<string, string> = {};
    const key = this.pick([
      DEMO_KEYS.premium.key,
      DEMO_KEYS.premium.key,
      DEMO_KEYS.basic.key,
      DEMO_KEYS.other.key,
      'invalid-key',
      null,
    ]);
    if (key) headers.authorization = `Bearer ${key}`;
    if (this.chance(0.1)) headers['cache-control'] = 'no-cache';
    const roll = this.random();
    if (roll < 0.03) return { body: { query: this.garbage() }, headers };
    if (roll < 0.05)
      return { body: { query: 'subscription S { factoryOptionChanged(factoryId: "x") { slot } }' }, headers };
    if (roll < 0.08) return { body: { query: this.fanOut() }, headers };
    if (roll < 0.11)
      return { body: { query: '{ __schema { types { name fields { name args { name } } } } }' }, headers };
    return this.operation(headers);
  }

  private operation(headers: Record<string, string>): FuzzRequest {
    const mutation = this.chance(0.05) ? this.schema.getMutationType() : null;
    const root = mutation ?? this.schema.getQueryType();
    if (!root) throw new Error('no root type');
    const variables: Record<string, unknown> = {};
    const definitions: string[] = [];
    const fragments: string[] = [];
    const selection = this.selectionSet(root, 0, variables, definitions, fragments);
    if (this.chance(0.1)) variables.undeclared = this.chance(0.5) ? 'x'.repeat(1000) : { deep: { er: [1, 2, 3] } };
    const name = `Fuzz${Math.floor(this.random() * 1e6)}`;
    const head = `${mutation ? 'mutation' : 'query'} ${name}${definitions.length > 0 ? `(${definitions.join(', ')})` : ''}`;
    return {
      body: { query: [`${head} ${selection}`, ...fragments].join('\n'), variables, operationName: name },
      headers,
    };
  }

  private selectionSet(
    type: GraphQLObjectType | GraphQLNamedType,
    depth: number,
    variables: Record<string, unknown>,
    definitions: string[],
    fragments: string[],
  ): string {
    const parts: string[] = [];
    const named = type;
    if (isUnionType(named) || isInterfaceType(named)) {
      const possible = this.schema.getPossibleTypes(named);
      parts.push('__typename');
      if (isInterfaceType(named))
        parts.push(...this.fields(named.getFields(), depth, variables, definitions, fragments, 2));
      for (const each of possible)
        if (this.chance(0.5))
          parts.push(`... on ${each.name} ${this.selectionSet(each, depth, variables, definitions, fragments)}`);
    } else if (isObjectType(named)) {
      parts.push(
        ...this.fields(named.getFields(), depth, variables, definitions, fragments, 1 + Math.floor(this.random() * 4)),
      );
      if (this.chance(0.1)) {
        const fragment = `F${(this.fragmentCount += 1)}`;
        fragments.push(
          `fragment ${fragment} on ${named.name} { __typename ${this.fields(named.getFields(), depth, variables, definitions, fragments, 1).join(' ')} }`,
        );
        parts.push(`...${fragment}`, `...${fragment}`);
      }
    }
    if (parts.length === 0) parts.push('__typename');
    if (this.chance(0.03)) parts.push('noSuchField');
    return `{ ${parts.join(' ')} }`;
  }

  private fields(
    fields: Readonly<Record<string, GraphQLField<unknown, unknown>>>,
    depth: number,
    variables: Record<string, unknown>,
    definitions: string[],
    fragments: string[],
    count: number,
  ): string[] {
    const all = Object.values(fields);
    const chosen: string[] = [];
    for (let i = 0; i < count && all.length > 0; i += 1) {
      const field = this.pick(all);
      const inner = getNamedType(field.type);
      const composite = !isScalarType(inner) && !isEnumType(inner);
      if (composite && depth >= 3) continue;
      const alias = this.chance(0.15) ? `a${Math.floor(this.random() * 1000)}: ` : '';
      const args =
        field.args.length > 0
          ? `(${field.args.map((arg) => `${arg.name}: ${this.argument(arg, variables, definitions)}`).join(', ')})`
          : '';
      const directive = this.chance(0.05) ? ` @${this.pick(['skip', 'include'])}(if: ${String(this.chance(0.5))})` : '';
      const sub = composite ? ` ${this.selectionSet(inner, depth + 1, variables, definitions, fragments)}` : '';
      chosen.push(`${alias}${field.name}${args}${directive}${sub}`);
    }
    return chosen;
  }

  private argument(arg: GraphQLArgument, variables: Record<string, unknown>, definitions: string[]): string {
    const value = this.value(arg.type);
    if (!this.chance(0.3)) return JSON.stringify(value).replace(/"(\w+)":/g, '$1: ');
    const name = `v${definitions.length}`;
    definitions.push(`$${name}: ${String(arg.type)}`);
    variables[name] = this.chance(0.05) ? 'not-what-it-wants' : value;
    return `$${name}`;
  }

  private value(type: GraphQLInputType): unknown {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return [this.value(inner.ofType)];
    if (isInputObjectType(inner))
      return Object.fromEntries(Object.values(inner.getFields()).map((field) => [field.name, this.value(field.type)]));
    if (isEnumType(inner)) return this.pick(inner.getValues()).name;
    switch (inner.name) {
      case 'Int':
        return this.pick(INTS);
      case 'ID':
        return this.pick(IDS);
      case 'Boolean':
        return this.chance(0.5);
      case 'Float':
        return this.random() * 1000;
      default:
        return this.pick(STRINGS);
    }
  }

  private fanOut(): string {
    const levels = 8 + Math.floor(this.random() * 10);
    const parts = ['query FanOut { ...G0 }'];
    for (let i = 0; i < levels - 1; i += 1)
      parts.push(`fragment G${i} on Query { ...G${i + 1} ...G${i + 1} ...G${i + 1} }`);
    parts.push(
      `fragment G${levels - 1} on Query { ${this.pick(['__typename', 'factories { id }', 'buildings { rooms { id } }'])} }`,
    );
    return parts.join('\n');
  }

  private garbage(): string {
    return this.pick([
      '{',
      '}}}',
      'query { factories { id ',
      '{ factories(id: ) }',
      '"\\u',
      '{ ...Missing }',
      'fragment A on Query { ...A } { ...A }',
      '{ factory(id: 1.5e999) { id } }',
    ]);
  }
}

/** What a fuzz run found. */
export interface FuzzReport {
  sent: number;
  byStatus: Record<string, number>;
  /** Answers that broke a promise: 5xx, INTERNAL_SERVER_ERROR, a body that is not JSON, or slower than the bound. */
  failures: { request: FuzzRequest; status: number; problem: string }[];
  slowestMs: number;
}

/**
 * Sends `count` generated requests to `endpoint`, `concurrency` at a time, and reports
 * every answer that breaks a promise.
 */
export async function runFuzz(options: {
  schema: GraphQLSchema;
  endpoint: string;
  seed: number;
  count: number;
  concurrency: number;
  boundMs: number;
}): Promise<FuzzReport> {
  const fuzzer = new OperationFuzzer(options.schema, options.seed);
  const requests = Array.from({ length: options.count }, () => fuzzer.next());
  const report: FuzzReport = { sent: 0, byStatus: {}, failures: [], slowestMs: 0 };
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    for (let index = nextIndex++; index < requests.length; index = nextIndex++) {
      const request = requests[index];
      if (!request) break;
      const started = performance.now();
      const response = await fetch(options.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...request.headers,
        },
        body: JSON.stringify(request.body),
      });
      const text = await response.text();
      const ms = performance.now() - started;
      report.sent += 1;
      report.slowestMs = Math.max(report.slowestMs, ms);
      report.byStatus[response.status] = (report.byStatus[response.status] ?? 0) + 1;
      const fail = (problem: string): void => void report.failures.push({ request, status: response.status, problem });
      if (response.status >= 500) fail(`HTTP ${response.status}`);
      if (ms > options.boundMs) fail(`answered in ${Math.round(ms)} ms`);
      try {
        const body = JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] };
        if (body.errors?.some((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR'))
          fail('INTERNAL_SERVER_ERROR');
      } catch {
        fail(`not JSON: ${text.slice(0, 80)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, () => worker()));
  return report;
}
