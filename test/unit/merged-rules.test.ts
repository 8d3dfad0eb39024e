/**
 * Validation rules merged once per document (src/graph/validation/merged-rules.ts) walk a
 * document as graphql-js's `visitInParallel` does: the same handlers in the same order,
 * skipped subtrees, BREAK and edits alike (random visitors over random choices), and the
 * full validation gives the same errors with the merged rule as with the list.
 */
import fc from 'fast-check';
import { BREAK, Kind, parse, specifiedRules, validate, visit, visitInParallel } from 'graphql';
import type { ASTNode, ASTVisitor, DocumentNode } from 'graphql';
import { mergeVisitors, mergedRule } from '../../src/graph/validation/merged-rules';
import { buildGatewaySchema } from '../../src/graph/schema';

const DOCUMENTS = [
  'query A($id: ID!) { factory(id: $id) { id name ...F } } fragment F on Factory { name inventory { items { item } } }',
  '{ a { b { c } d } e }',
  'mutation M { x(y: [1, 2, { z: "w" }]) @skip(if: false) { ... on T { u } } }',
];

/** What a handler returns: nothing, false (skip the subtree), BREAK, or an edit (a replacement node). */
type Outcome = 'none' | 'skip' | 'break' | 'edit';

/** A visitor of some kinds, written in one of graphql-js's forms, logging each call; `choose` says what each call returns. */
function visitorOf(
  id: number,
  kinds: Array<{ kind: string; form: 'function' | 'enter' | 'leave' | 'both' }>,
  every: 'none' | 'enter' | 'leave' | 'both',
  choose: (call: number) => Outcome,
  log: string[],
): ASTVisitor {
  let calls = 0;
  const handler =
    (phase: string) =>
    (node: ASTNode): unknown => {
      calls += 1;
      log.push(`${id}:${phase}:${node.kind}:${node.loc?.start ?? -1}`);
      const outcome = choose(calls);
      if (outcome === 'skip') return phase === 'enter' ? false : undefined;
      if (outcome === 'break') return BREAK;
      if (outcome === 'edit') return { kind: Kind.NAME, value: `edited-${id}` };
      return undefined;
    };
  const visitor: Record<string, unknown> = {};
  for (const { kind, form } of kinds) {
    if (form === 'function') visitor[kind] = handler('enter');
    else if (form === 'enter') visitor[kind] = { enter: handler('enter') };
    else if (form === 'leave') visitor[kind] = { leave: handler('leave') };
    else visitor[kind] = { enter: handler('enter'), leave: handler('leave') };
  }
  // A visitor of every kind it names no handler for (as graphql-js's UniqueDirectivesPerLocationRule).
  if (every === 'enter' || every === 'both') visitor['enter'] = handler('enter');
  if (every === 'leave' || every === 'both') visitor['leave'] = handler('leave');
  return visitor as ASTVisitor;
}

describe('mergeVisitors', () => {
  const parsed = DOCUMENTS.map((text) => parse(text));

  it('walks every document as visitInParallel does (random visitors, skips, BREAK and edits)', () => {
    const kinds = fc.constantFrom(
      Kind.FIELD,
      Kind.NAME,
      Kind.SELECTION_SET,
      Kind.OPERATION_DEFINITION,
      Kind.FRAGMENT_SPREAD,
      Kind.ARGUMENT,
      Kind.VARIABLE_DEFINITION,
      Kind.INLINE_FRAGMENT,
      Kind.OBJECT,
    );
    const visitorSpec = fc.record({
      kinds: fc.uniqueArray(
        fc.record({
          kind: kinds,
          form: fc.constantFrom('function', 'enter', 'leave', 'both') as fc.Arbitrary<
            'function' | 'enter' | 'leave' | 'both'
          >,
        }),
        { selector: (entry) => entry.kind, maxLength: 5 },
      ),
      every: fc.constantFrom('none', 'none', 'enter', 'leave', 'both') as fc.Arbitrary<
        'none' | 'enter' | 'leave' | 'both'
      >,
      outcomes: fc.array(fc.constantFrom<Outcome>('none', 'none', 'none', 'skip', 'break', 'edit'), {
        minLength: 1,
        maxLength: 30,
      }),
    });
    fc.assert(
      fc.property(fc.array(visitorSpec, { maxLength: 6 }), fc.nat(parsed.length - 1), (specs, which) => {
        const document = parsed[which] as DocumentNode;
        const run = (merge: (visitors: ASTVisitor[]) => ASTVisitor): { log: string[]; result: unknown } => {
          const log: string[] = [];
          const visitors = specs.map((spec, id) =>
            visitorOf(
              id,
              spec.kinds,
              spec.every,
              (call) => spec.outcomes[(call - 1) % spec.outcomes.length] ?? 'none',
              log,
            ),
          );
          const result = visit(document, merge(visitors));
          return { log, result };
        };
        const theirs = run((visitors) => visitInParallel(visitors));
        const ours = run(mergeVisitors);
        expect(ours.log).toEqual(theirs.log);
        expect(ours.result).toEqual(theirs.result);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves a visitor with inherited handlers to graphql-js', () => {
    const log: string[] = [];
    class Visitor {
      Field(node: ASTNode): void {
        log.push(node.kind);
      }
    }
    visit(parse('{ a }'), mergeVisitors([new Visitor() as ASTVisitor]));
    expect(log).toEqual(['Field']);
  });
});

describe('mergedRule', () => {
  it('gives the full validation the same errors, in the same order, as the list of rules', async () => {
    const schema = await buildGatewaySchema();
    const invalid = [
      '{ factory { nope } }',
      'query A($x: Int) { factories { id name(a: 1) } } query A { nope }',
      '{ ...Missing factories { ... on Factory { id ...Cycle } } } fragment Cycle on Factory { ...Cycle }',
      'query($id: ID!, $unused: Int) { factory(id: $undefined) { id id: name } }',
      '{ factories { id } }',
    ];
    for (const text of invalid) {
      const document = parse(text);
      const plain = validate(schema, document, specifiedRules).map((error) => error.toJSON());
      const merged = validate(schema, document, [mergedRule(specifiedRules)]).map((error) => error.toJSON());
      expect(merged).toEqual(plain);
    }
  });
});
