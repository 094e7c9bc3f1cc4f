import { groupBy } from '../../../services/rules/group-by';

describe('groupBy', () => {
  it('keeps each group in the items’ order and the groups in the order their keys first appear', () => {
    const events = [
      { id: 1, project: 'b' },
      { id: 2, project: 'a' },
      { id: 3, project: 'b' },
      { id: 4, project: 'c' },
      { id: 5, project: 'a' },
    ];
    const groups = groupBy(events, (event) => event.project);
    expect([...groups.keys()]).toEqual(['b', 'a', 'c']);
    expect([...groups.values()].map((group) => group.map((event) => event.id))).toEqual([[1, 3], [2, 5], [4]]);
  });

  it('reads any iterable once, and gives no groups for no items', () => {
    expect(groupBy(['x', 'yy', 'zz', 'w'].values(), (word) => word.length)).toEqual(
      new Map([
        [1, ['x', 'w']],
        [2, ['yy', 'zz']],
      ]),
    );
    expect(groupBy([], () => 'key').size).toBe(0);
  });
});
