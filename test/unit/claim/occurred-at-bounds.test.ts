import { occurredAtBounds } from '../../../services/claim/domain/conversion-input';

/** How early and how late a conversion's occurred_at may be (the domain refuses the rest: test/medium/claim/conversions.test.ts). */
describe('occurred_at bounds', () => {
  it('takes the window from CONVERSION_BACKFILL_DAYS', () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    const createdAt = new Date('2026-06-01T00:00:00.000Z');
    expect(occurredAtBounds(now, createdAt, 0)).toMatchObject({ earliest: createdAt, latest: new Date('2026-11-21T12:05:00.000Z') });
    expect(occurredAtBounds(now, createdAt, 30).earliest).toEqual(new Date('2026-05-02T00:00:00.000Z'));
    expect(occurredAtBounds(now, undefined, 1).earliest).toEqual(new Date('2026-11-20T12:00:00.000Z'));
  });
});
