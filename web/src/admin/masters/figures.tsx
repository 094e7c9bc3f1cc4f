import { type CurrencyAmount, formatCurrencyAmount } from '../../ui/format';

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
