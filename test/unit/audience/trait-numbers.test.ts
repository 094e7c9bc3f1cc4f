import { numberTextProblem } from '../../../services/audience/domain/trait-fields';

/** A numeric trait's text: a JSON number within the magnitudes a trait may hold. */
describe('trait number texts', () => {
  it.each([
    ['1e101', 'magnitude'],
    ['1e-101', 'magnitude'],
    ['0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001', 'characters'],
    ['01', 'JSON number'],
    ['1.', 'JSON number'],
    ['NaN', 'JSON number'],
    ['+1', 'JSON number'],
    ['0e9999999999', 'magnitude'],
  ])('refuses the number text %s', (text, reason) => {
    expect(numberTextProblem(text)).toContain(reason);
  });

  it.each([['1e100'], ['9.99e100'], ['1e-100'], ['0e100'], ['0.000'], ['-123.456e-7']])('accepts the number text %s', (text) => {
    expect(numberTextProblem(text)).toBeUndefined();
  });
});
