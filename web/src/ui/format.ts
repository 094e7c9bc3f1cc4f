/** Display helpers. Amounts stay the API's exact decimal strings: they are grouped, never parsed into floats. */

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** "1234567.5" -> "1,234,567.5", digit for digit. */
export function formatDecimal(value: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(value);
  if (!match) return value;
  return `${match[1]}${match[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${match[3] ?? ''}`;
}

export function formatUsd(value: string): string {
  return `$${formatDecimal(value)}`;
}

/** A long identifier (an address) shortened for a narrow cell; the full value goes in a title. */
export function shortIdentifier(identifier: string): string {
  return identifier.length > 18 ? `${identifier.slice(0, 10)}…${identifier.slice(-6)}` : identifier;
}
