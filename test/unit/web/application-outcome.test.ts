import { decisionOutcome } from '../../../web/src/admin/applications/outcome';

/** The applications queue's outcome of a bulk decision, in a sentence with the names. */
describe('an application decision in words', () => {
  const names = new Map([
    ['a', 'alice.eth'],
    ['b', 'Bob'],
    ['c', 'Carol'],
  ]);
  const nameOf = (id: string) => names.get(id) ?? id;
  const ok = (id: string) => ({ application_id: id, ok: true, error: null });

  it('names what went through, by action', () => {
    expect(decisionOutcome('approve', [ok('a')], nameOf)).toEqual({ sentence: 'Approved alice.eth.', refused: [] });
    expect(decisionOutcome('reject', [ok('a'), ok('b'), ok('c')], nameOf).sentence).toBe('Rejected alice.eth, Bob, and Carol.');
    expect(decisionOutcome('hold', [ok('b')], nameOf).sentence).toBe('Put Bob on hold.');
    const many = Array.from({ length: 8 }, (_, index) => ok(`id${index}`));
    expect(decisionOutcome('approve', many, nameOf).sentence).toBe('Approved id0, id1, id2, id3, id4, and 3 more.');
  });

  it('lists each refused application by name with the API’s reason, and says nothing went through when none did', () => {
    const refused = { application_id: 'b', ok: false, error: { code: 'APPLICATION_DECIDED', message: 'already decided', details: [] } };
    expect(decisionOutcome('approve', [refused], nameOf)).toEqual({ sentence: '', refused: [{ id: 'b', name: 'Bob', reason: 'already decided' }] });
  });
});
