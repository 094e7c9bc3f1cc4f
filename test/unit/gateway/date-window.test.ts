import { HttpError } from '../../../gateway/http/errors';
import { timeWindow, windowBound } from '../../../gateway/routes/claim/date-window';

/** The payouts queries' date windows (gateway/routes/claim/date-window.ts): days are whole UTC days, `to` inclusive. */
describe('a query’s window of time', () => {
  const window = (from: string | undefined, to: string | undefined, together = false) =>
    timeWindow({ field: 'from_date', value: from }, { field: 'to_date', value: to }, together);

  it('reads days as whole UTC days, the last one included, and instants as written (inclusive)', () => {
    expect(window('2026-11-21', '2026-11-23')).toEqual({ from: new Date('2026-11-21T00:00:00Z'), to: new Date('2026-11-24T00:00:00Z') });
    expect(window('2026-11-21', '2026-11-21')).toEqual({ from: new Date('2026-11-21T00:00:00Z'), to: new Date('2026-11-22T00:00:00Z') });
    expect(window('2026-11-21T10:00:00+02:00', '2026-11-21T12:00:00.500Z')).toEqual({
      from: new Date('2026-11-21T08:00:00Z'),
      to: new Date('2026-11-21T12:00:00.501Z'),
    });
    expect(window(undefined, undefined)).toEqual({ from: undefined, to: undefined });
    expect(window('2026-11-21', undefined)).toEqual({ from: new Date('2026-11-21T00:00:00Z'), to: undefined });
  });

  it('accepts days and instants with an offset, and nothing else', () => {
    for (const good of ['2026-11-21', '2024-02-29', '2026-11-21T10:00Z', '2026-11-21T10:00:00.123Z', '2026-11-21T10:00:00-05:00']) {
      expect(windowBound.safeParse(good).success).toBe(true);
    }
    for (const bad of ['2026-02-29', '2026-13-01', '2026-11-21T10:00:00', 'yesterday', '21/11/2026', '1732147200', '']) {
      expect(windowBound.safeParse(bad).success).toBe(false);
    }
  });

  it('refuses a window that ends before it starts, and one bound alone where both go together, naming the field', () => {
    const refused = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        if (error instanceof HttpError) return { status: error.status, code: error.code, details: error.details };
        throw error;
      }
      throw new Error('the window was accepted');
    };
    expect(refused(() => window('2026-11-23', '2026-11-22'))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'to_date', reason: 'is before from_date' }],
    });
    expect(refused(() => window('2026-11-23', undefined, true)).details).toEqual([{ field: 'to_date', reason: 'is required with from_date' }]);
    expect(refused(() => window(undefined, '2026-11-23', true)).details).toEqual([{ field: 'from_date', reason: 'is required with to_date' }]);
  });
});
