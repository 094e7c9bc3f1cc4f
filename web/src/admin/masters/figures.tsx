import { type CurrencyAmount, formatCurrencyAmount } from '../../ui/format';

/** 250 -> "2.5%": basis points in integer steps, no float rounding. */
export function formatSpread(bps: number): string {
  const whole = Math.floor(bps / 100);
  const hundredths = String(bps % 100)
    .padStart(2, '0')
    .replace(/0$/, '');
  return hundredths === '' || hundredths === '0' ? `${whole}%` : `${whole}.${hundredths}%`;
}

/** Amounts in several currencies, one a line, each with its currency's decimals. */
export function Amounts({ amounts, label }: { amounts: readonly CurrencyAmount[]; label: string }) {
  if (amounts.length === 0) return <span className="subtle">none yet</span>;
  return (
    <ul className="amounts" aria-label={label}>
      {amounts.map((amount, index) => (
        <li key={`${amount.currency_address ?? ''}:${index}`}>{formatCurrencyAmount(amount)}</li>
      ))}
    </ul>
  );
}
