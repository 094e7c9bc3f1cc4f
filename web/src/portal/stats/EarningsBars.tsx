import type { ApiResult } from '../../api/client';
import { DailyBars } from '../../ui/DailyBars';
import { currencyOfAmount, formatCurrencyAmount, tokenAmount } from '../../ui/format';

type Stats = ApiResult<'/api/v1/projects/{projectId}/affiliate-portal/stats', 'get'>;
type Earning = Stats['earnings'][number];

/** One currency, however the API lists it (a point currency has no chain or address). */
const currencyKey = (earning: Earning) => `${earning.currency_chain_id}:${earning.currency_address}:${earning.currency_name}`;

/**
 * What the affiliate earned per UTC day, one bar chart per currency it earned in, in whole tokens
 * (smallest units while the decimals are not known); each day's exact amount is in its tooltip.
 */
export function EarningsBars({ stats }: { stats: Stats }) {
  return (
    <>
      {stats.earnings.map((currency) => {
        const key = currencyKey(currency);
        const name = currencyOfAmount(currency).type === 'point' ? 'points' : (currency.currency_name ?? 'a currency not known yet');
        return (
          <DailyBars
            key={key}
            title={`Earned in ${name} per day`}
            caption={`What you earned in ${name} per UTC day over these 30 days; hover a bar for its exact amount.`}
            bars={stats.series.map((day) => {
              const amount = day.earnings.find((earning) => currencyKey(earning) === key)?.amount ?? '0';
              const height = Number(currency.currency_decimals === null ? amount : tokenAmount(amount, currency.currency_decimals));
              return { day: day.date, height, label: formatCurrencyAmount({ ...currency, amount }) };
            })}
          />
        );
      })}
    </>
  );
}
