import { daysRemaining } from '../../../services/agency/domain/tier-protection.service';

const START = '2026-11-21T12:00:00.000Z';
const DAY = 86_400_000;
const at = (days: number, ms = 0) => new Date(Date.parse(START) + days * DAY + ms);

/** Tier protection (§2.9, §8.2): the days remaining are whole days rounded up, from the injected clock. */
describe('tier protection', () => {
  describe('days remaining', () => {
    it.each([
      [at(10), 10],
      [at(10, -1), 10],
      [at(9, 1), 10],
      [at(9), 9],
      [at(0, 1), 1],
      [at(0), 0],
      [at(-1), 0],
    ])('until %p from the start: %p (whole days, rounded up, never below 0)', (expiresAt, expected) => {
      expect(daysRemaining(expiresAt, at(0))).toBe(expected);
    });
  });
});
