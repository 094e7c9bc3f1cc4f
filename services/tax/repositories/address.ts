import type { AddressJson } from '../database';

/** A postal address as the tax records and settings store it (jsonb, snake_case keys). */
export interface Address {
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string;
  country: string;
}

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
