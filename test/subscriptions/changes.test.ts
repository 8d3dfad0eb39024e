/** The one change shape of every subscribable resource: diffRecords, as properties over random record lists. */
import fc from 'fast-check';
import { diffRecords } from '../../src/domains/feeds/changes';

interface Rec {
  id: string;
  value: number;
}

const records = fc.uniqueArray(
  fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), value: fc.integer({ min: 0, max: 3 }) }),
  { selector: (rec) => rec.id, maxLength: 6 },
);
const diff = (before: Rec[], after: Rec[]) =>
  diffRecords(
    before,
    after,
    (rec) => rec.id,
    (a, b) => a.value === b.value,
  );

describe('diffRecords', () => {
  it('applied to the previous records, gives the next ones', () => {
    fc.assert(
      fc.property(records, records, (before, after) => {
        const state = new Map<string, Rec>(before.map((rec) => [rec.id, rec] as const));
        for (const change of diff(before, after)) {
          if (change.after) state.set(change.key, change.after);
          else state.delete(change.key);
        }
        expect(new Map([...state].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
          new Map(after.map((rec) => [rec.id, rec] as const).sort(([a], [b]) => a.localeCompare(b))),
        );
      }),
    );
  });

  it('reports only real changes, each record once: new and changed in the new order, then the gone ones', () => {
    fc.assert(
      fc.property(records, records, (before, after) => {
        const changes = diff(before, after);
        expect(new Set(changes.map((change) => change.key)).size).toBe(changes.length);
        for (const change of changes)
          expect(change.before && change.after && change.before.value === change.after.value).toBeFalsy();
        const present = changes.filter((change) => change.after !== null).map((change) => change.key);
        expect(present).toEqual(after.map((rec) => rec.id).filter((id) => present.includes(id)));
        const firstGone = changes.findIndex((change) => change.after === null);
        if (firstGone >= 0) expect(changes.slice(firstGone).every((change) => change.after === null)).toBe(true);
      }),
    );
  });

  it('finds nothing between a list and itself', () => {
    fc.assert(fc.property(records, (list) => diff(list, [...list].reverse()).length === 0));
  });
});
