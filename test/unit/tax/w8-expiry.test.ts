import { DEFAULT_W8_EXPIRY_RULE, w8ExpiresAt } from '../../../services/tax/domain/w8-expiry';

/** W-8 expiry: the rules' arithmetic, and the default. */
describe('W-8 expiry', () => {
  describe('the rules', () => {
    // Approved on a day of its own: the signature rules ignore the approval, the default ignores the signature.
    const APPROVED = new Date('2031-07-04T15:30:00.000Z');
    it.each([
      ['2026-03-10', 'three_years', '2029-03-10T00:00:00.000Z'],
      ['2028-02-29', 'three_years', '2031-02-28T00:00:00.000Z'],
      ['2027-02-28', 'three_years', '2030-02-28T00:00:00.000Z'],
      ['2029-02-28', 'three_years', '2032-02-28T00:00:00.000Z'],
      ['2026-12-31', 'three_years', '2029-12-31T00:00:00.000Z'],
      ['2026-01-01', 'three_years', '2029-01-01T00:00:00.000Z'],
      ['2026-01-01', 'irs_calendar', '2030-01-01T00:00:00.000Z'],
      ['2026-12-31', 'irs_calendar', '2030-01-01T00:00:00.000Z'],
      ['2028-02-29', 'irs_calendar', '2032-01-01T00:00:00.000Z'],
      ['2026-03-10', 'three_years_from_approval', '2034-07-04T15:30:00.000Z'],
      ['2020-01-01', 'three_years_from_approval', '2034-07-04T15:30:00.000Z'],
    ] as const)('a W-8 signed %s under %s stops being valid at %s', (signed, rule, expected) => {
      expect(w8ExpiresAt({ signatureDate: signed, approvedAt: APPROVED }, rule).toISOString()).toBe(expected);
    });

    it.each([
      ['2026-11-21T12:00:00.000Z', '2029-11-21T12:00:00.000Z'],
      ['2028-02-29T08:30:15.250Z', '2031-02-28T08:30:15.250Z'],
      ['2027-12-31T23:59:59.999Z', '2030-12-31T23:59:59.999Z'],
      ['2029-03-01T00:00:00.000Z', '2032-03-01T00:00:00.000Z'],
    ])('by default (three_years_from_approval) a W-8 approved at %s stops being valid at %s, to the instant', (approved, expected) => {
      expect(DEFAULT_W8_EXPIRY_RULE).toBe('three_years_from_approval');
      expect(w8ExpiresAt({ signatureDate: '2026-01-01', approvedAt: new Date(approved) }, DEFAULT_W8_EXPIRY_RULE).toISOString()).toBe(expected);
    });
  });
});
