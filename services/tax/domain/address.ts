/** A postal address as tax forms and settings hold it. */
export interface Address {
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string;
  country: string;
}
