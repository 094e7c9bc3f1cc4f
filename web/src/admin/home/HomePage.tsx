import { Link, useSearchParams } from 'react-router-dom';
import { formatDecimal, formatTokenAmount, formatUsd, tokenAmount } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, ErrorMessage, Loading } from '../../ui/states';
import { DailyBars } from '../../ui/DailyBars';
import { AffiliateLink } from '../affiliates/AffiliateLink';
import { type Overview, type OverviewCurrency, useOverview } from './overview';
import { describePeriod, periodFromUrl } from './period';
import { PeriodPicker } from './PeriodPicker';
import { QueueList } from './QueueList';

/**
 * The admin's first page: the program's figures over a period (the last 7, 30 or 90 days, or typed
 * days), the queues waiting for someone, and the affiliates that brought the most volume.
 */
export function HomePage() {
  const [params, setParams] = useSearchParams();
  const period = periodFromUrl(params, new Date());
  const overview = useOverview(period);
  const data = overview.data;
  return (
    <>
      <h1>Home</h1>
      <PeriodPicker key={`${period.from}/${period.to}`} period={period} onRange={(from, to) => setParams({ from, to })} />
      <p className="subtle" data-testid="period">
        Figures of {describePeriod(period)}: {period.from} to {period.to}, UTC days included.
      </p>
      {overview.isPending ? <Loading label="Loading the figures…" /> : null}
      {overview.isError ? <ErrorMessage error={overview.error} onRetry={() => void overview.refetch()} /> : null}
      {data ? (
        <>
          <QueueList queues={data.queues} />
          <Figures overview={data} period={describePeriod(period)} />
          <TopAffiliates overview={data} period={describePeriod(period)} />
        </>
      ) : null}
    </>
  );
}

const currencyOf = (overview: Overview, id: string): OverviewCurrency =>
  overview.figures.currencies.find((currency) => currency.id === id) ?? {
    id,
    name: 'an unknown currency',
    decimals: 0,
    chain_id: null,
    address: null,
  };

function Figures({ overview, period }: { overview: Overview; period: string }) {
  const { figures } = overview;
  return (
    <section aria-labelledby="home-figures">
      <h2 id="home-figures">Figures</h2>
      {!figures.complete ? (
        <p className="warning">
          These days hold more conversions or new affiliates than the home reads: the figures are of the newest 5,000. Pick fewer days.
        </p>
      ) : null}
      <dl className="stat-cards">
        <div>
          <dt>Conversions</dt>
          <dd data-testid="stat-conversions">{figures.conversions.toLocaleString('en-US')}</dd>
        </div>
        <div>
          <dt>Volume</dt>
          <dd data-testid="stat-volume">{formatUsd(figures.volume_usd)}</dd>
        </div>
        <div>
          <dt>New affiliates</dt>
          <dd data-testid="stat-new-affiliates">{figures.new_affiliates.toLocaleString('en-US')}</dd>
        </div>
        {figures.payouts.length === 0 ? (
          <div>
            <dt>Payouts</dt>
            <dd data-testid="stat-payouts">None</dd>
          </div>
        ) : (
          figures.payouts.map((payout) => {
            const currency = currencyOf(overview, payout.currency_id);
            return (
              <div key={payout.currency_id}>
                <dt>Payouts in {currency.name}</dt>
                <dd data-testid="stat-payouts">{formatTokenAmount(payout.amount, currency)}</dd>
              </div>
            );
          })
        )}
      </dl>
      {figures.conversions === 0 ? (
        <Empty>
          No conversions in {period}. Conversions arrive when your backend reports them (POST /api/v1/conversions); set what they pay in{' '}
          <Link to="/admin/payouts/terms">payout terms</Link>, and bring affiliates in from <Link to="/admin/applications">applications</Link>.
        </Empty>
      ) : (
        <DayCharts overview={overview} />
      )}
    </section>
  );
}

function DayCharts({ overview }: { overview: Overview }) {
  const { days, payouts } = overview.figures;
  return (
    <div className="chart-grid">
      <DailyBars
        title="Conversions per day"
        counts
        caption="Conversions received each UTC day, any status."
        bars={days.map((day) => ({ day: day.day, height: day.conversions, label: day.conversions.toLocaleString('en-US') }))}
      />
      <DailyBars
        title="Volume per day (USD)"
        caption="The USD volume of the conversions received each UTC day."
        bars={days.map((day) => ({ day: day.day, height: Number(day.volume_usd), label: formatUsd(day.volume_usd) }))}
      />
      {payouts.map((total) => {
        const currency = currencyOf(overview, total.currency_id);
        return (
          <DailyBars
            key={currency.id}
            title={`Payouts per day (${currency.name})`}
            caption={`What the conversions received each UTC day pay in ${currency.name}, net of reversals.`}
            bars={days.map((day) => {
              const amount = day.payouts.find((payout) => payout.currency_id === currency.id)?.amount ?? '0';
              return { day: day.day, height: Number(tokenAmount(amount, currency.decimals)), label: formatTokenAmount(amount, currency) };
            })}
          />
        );
      })}
      <details className="day-table">
        <summary>Figures per day</summary>
        <ScrollTable
          label="Figures per day"
          caption="Conversions, volume and payouts per UTC day, days with conversions"
          columns={['Day', numeric('Conversions'), numeric('Volume'), 'Payouts']}
        >
          {days
            .filter((day) => day.conversions > 0)
            .map((day) => (
              <tr key={day.day}>
                <td>{day.day}</td>
                <td className="number">{day.conversions.toLocaleString('en-US')}</td>
                <td className="number">{formatUsd(day.volume_usd)}</td>
                <td>{day.payouts.map((payout) => formatTokenAmount(payout.amount, currencyOf(overview, payout.currency_id))).join(', ') || '—'}</td>
              </tr>
            ))}
        </ScrollTable>
      </details>
    </div>
  );
}

function TopAffiliates({ overview, period }: { overview: Overview; period: string }) {
  const top = overview.top_affiliates;
  return (
    <section aria-labelledby="home-top-affiliates">
      <h2 id="home-top-affiliates">Top affiliates</h2>
      {top.length === 0 ? (
        <Empty>
          No conversion was attributed to an affiliate in {period}. Affiliates earn once users they referred convert: approve{' '}
          <Link to="/admin/applications">applications</Link> or add affiliates from the <Link to="/admin/affiliates">affiliates</Link> page.
        </Empty>
      ) : (
        <ScrollTable
          label="Top affiliates by volume"
          caption={`The affiliates the most volume was attributed to in ${period}`}
          columns={['Affiliate', numeric('Conversions'), numeric('Volume')]}
        >
          {top.map((affiliate) => (
            <tr key={`${affiliate.user_identifier_type}:${affiliate.user_identifier}`}>
              <td>
                <AffiliateLink identifier={affiliate.user_identifier} identifierType={affiliate.user_identifier_type} name={affiliate.name} />
              </td>
              <td className="number">{formatDecimal(String(affiliate.conversions))}</td>
              <td className="number">{formatUsd(affiliate.volume_usd)}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </section>
  );
}
