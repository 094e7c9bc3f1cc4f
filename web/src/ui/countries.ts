import { COUNTRY_CODES as API_COUNTRY_CODES } from '../../../services/rules/countries';

/**
 * The countries a person picks from: the codes the API accepts (ISO 3166-1 alpha-2, every officially assigned code,
 * services/rules/countries.ts). Embedded, so the picker loads nothing; the names are the browser's own English ones
 * (Intl.DisplayNames), so no list of names is kept here to go stale.
 */
export const COUNTRY_CODES: readonly string[] = [...API_COUNTRY_CODES];

/** [code, "Name (code)"] for every country, by name: a select's options, the API's code as each value. */
export function countryOptions(): Array<readonly [code: string, label: string]> {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  return COUNTRY_CODES.map((code) => [code, `${names.of(code) ?? code} (${code})`] as const).sort((a, b) => a[1].localeCompare(b[1], 'en'));
}
