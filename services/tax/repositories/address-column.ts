import type { AddressJson } from '../database';
import type { Address } from '../domain/address';

/** An address in a jsonb column (snake_case keys), as tax records and settings store it. */

/** JSON text for the column, or SQL NULL (never a JSON null) when there is no address. */
export function addressToJson(address: Address | null): string | null {
  if (!address) return null;
  const json: AddressJson = {
    line1: address.line1,
    line2: address.line2,
    city: address.city,
    region: address.region,
    postal_code: address.postalCode,
    country: address.country,
  };
  return JSON.stringify(json);
}

export function addressFromJson(json: AddressJson | null): Address | null {
  if (!json) return null;
  return { line1: json.line1, line2: json.line2, city: json.city, region: json.region, postalCode: json.postal_code, country: json.country };
}
