import type { FieldViolation } from '../../rules/errors';

/**
 * Format rules for tax identification numbers. Messages never repeat the value: a TIN must not
 * travel into error bodies or logs.
 */
export interface CheckedTin {
  /** The stored form: digits only for SSN and EIN, upper-case letters and digits for a foreign TIN. */
  value: string | null;
  violations: FieldViolation[];
}

const SSN = /^(?:(\d{3})-(\d{2})-(\d{4})|(\d{3})(\d{2})(\d{4}))$/;
const EIN = /^(?:(\d{2})-(\d{7})|(\d{2})(\d{7}))$/;

/** EIN prefixes the IRS assigns (campuses, the online application and the SBA). */
const VALID_EIN_PREFIXES: ReadonlySet<string> = new Set(
  [
    '01 02 03 04 05 06',
    '10 11 12 13 14 15 16',
    '20 21 22 23 24 25 26 27',
    '30 31 32 33 34 35 36 37 38 39',
    '40 41 42 43 44 45 46 47 48',
    '50 51 52 53 54 55 56 57 58 59',
    '60 61 62 63 64 65 66 67 68',
    '71 72 73 74 75 76 77',
    '80 81 82 83 84 85 86 87 88',
    '90 91 92 93 94 95 98 99',
  ]
    .join(' ')
    .split(' '),
);

const FOREIGN_TIN_SEPARATORS = /[\s./-]/g;
const FOREIGN_TIN = /^[A-Z0-9]{5,30}$/;

const invalid = (field: string, reason: string): CheckedTin => ({ value: null, violations: [{ field, reason }] });

/** 123-45-6789 or 123456789; no area 000, 666 or 900-999, no group 00, no serial 0000. */
export function checkSsn(raw: string, field: string): CheckedTin {
  const match = SSN.exec(raw.trim());
  if (!match) return invalid(field, 'must be an SSN: 9 digits, written NNN-NN-NNNN or NNNNNNNNN');
  const [area, group, serial] = [match[1] ?? match[4]!, match[2] ?? match[5]!, match[3] ?? match[6]!];
  const areaNumber = Number(area);
  if (area === '000' || area === '666' || areaNumber >= 900) {
    return invalid(field, 'is not a valid SSN: the first three digits cannot be 000, 666 or 900-999');
  }
  if (group === '00') return invalid(field, 'is not a valid SSN: the middle two digits cannot be 00');
  if (serial === '0000') return invalid(field, 'is not a valid SSN: the last four digits cannot be 0000');
  return { value: `${area}${group}${serial}`, violations: [] };
}

/** 12-3456789 or 123456789, with a prefix the IRS assigns. */
export function checkEin(raw: string, field: string): CheckedTin {
  const match = EIN.exec(raw.trim());
  if (!match) return invalid(field, 'must be an EIN: 9 digits, written NN-NNNNNNN or NNNNNNNNN');
  const [prefix, serial] = [match[1] ?? match[3]!, match[2] ?? match[4]!];
  if (!VALID_EIN_PREFIXES.has(prefix)) return invalid(field, 'is not a valid EIN: the IRS assigns no EIN with this two-digit prefix');
  return { value: `${prefix}${serial}`, violations: [] };
}

/**
 * A foreign TIN: 5 to 30 letters and digits once spaces, dots, slashes and dashes are removed.
 * Shorter values are refused so that the masked form always hides part of the number.
 */
export function checkForeignTin(raw: string, field: string): CheckedTin {
  const value = raw.replace(FOREIGN_TIN_SEPARATORS, '').toUpperCase();
  if (!FOREIGN_TIN.test(value)) {
    return invalid(field, 'must be a foreign tax id of 5 to 30 letters and digits (spaces, dots, slashes and dashes are ignored)');
  }
  return { value, violations: [] };
}

/** The stored TIN as people write it: SSN 123-45-6789, EIN 12-3456789, a foreign TIN unchanged. */
export function formatTin(value: string, tinType: 'ssn' | 'ein' | 'foreign'): string {
  if (tinType === 'ssn') return `${value.slice(0, 3)}-${value.slice(3, 5)}-${value.slice(5)}`;
  if (tinType === 'ein') return `${value.slice(0, 2)}-${value.slice(2)}`;
  return value;
}

/** Only the last four characters show. */
export function maskTin(value: string): string {
  return `*****${value.slice(-4)}`;
}
