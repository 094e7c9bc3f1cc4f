import { COUNTRY_CODES as API_COUNTRY_CODES } from '../../../services/rules/countries';
import { COUNTRY_CODES, countryOptions } from '../../../web/src/ui/countries';

/** The portal's country picker offers exactly the codes the API accepts (the web app keeps its own copy: it may not import services/). */
describe('the web app’s countries', () => {
  it('are the API’s ISO 3166-1 alpha-2 codes, each once', () => {
    expect([...COUNTRY_CODES].sort()).toEqual([...API_COUNTRY_CODES].sort());
    expect(new Set(COUNTRY_CODES).size).toBe(COUNTRY_CODES.length);
  });

  it('are offered by name with the code beside it, sorted by name', () => {
    const options = countryOptions();
    expect(options).toHaveLength(249);
    expect(options).toContainEqual(['DE', 'Germany (DE)']);
    expect(options).toContainEqual(['US', 'United States (US)']);
    const labels = options.map(([, label]) => label);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, 'en')));
  });
});
