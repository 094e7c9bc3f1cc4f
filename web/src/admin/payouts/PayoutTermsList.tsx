import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ListStates } from '../../ui/states';
import { useProject } from '../session';
import { currencyLabel, useCurrencyChoices } from './currencies';
import { termsKey } from './PayoutTermsEditor';
import { describeLevels, describeReward } from './reward';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

const PAGE_SIZE = 25;

/** The project's payout terms, one per conversion name, each opening its editor. */
export function PayoutTermsList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const currencies = useCurrencyChoices();
  const terms = useQuery({
    queryKey: [...termsKey(projectId), 'list', page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/payout-terms', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  const currencyOf = (id: string) => currencies.data?.find((currency) => currency.id === id);
  return (
    <>
      <div className="page-head">
        <h2 id="terms-title">Payout terms</h2>
        <Link className="button" to="new">
          New payout terms
        </Link>
      </div>
      <p className="help">
        What each conversion name pays, in which currency. A conversion whose name no terms cover is recorded as no_terms and pays nothing.
      </p>
      <ListStates
        query={terms}
        loading="Loading payout terms…"
        empty={
          <>
            No payout terms yet. <Link to="new">Create the first ones</Link>.
          </>
        }
      />
      {terms.data && terms.data.results.length > 0 ? (
        <>
          <ScrollTable
            labelledBy="terms-title"
            caption="Payout terms by conversion name"
            columns={['Conversion name', 'Currency', 'End user', 'Affiliate', 'Referral levels', numeric('Tier rewards'), 'Updated']}
          >
            {terms.data.results.map((row) => {
              const currency = currencyOf(row.currency_id);
              return (
                <tr key={row.conversion_name}>
                  <td>
                    <Link to={`edit/${encodeURIComponent(row.conversion_name)}`}>{row.conversion_name}</Link>
                  </td>
                  <td>{currency ? currencyLabel(currency) : row.currency_id}</td>
                  <td>{describeReward(row.end_user, currency)}</td>
                  <td>{describeReward(row.affiliate, currency)}</td>
                  <td data-testid="terms-levels">{describeLevels(row, currency) || 'Level 1 only'}</td>
                  <td className="number">{row.tiers.length}</td>
                  <td>{formatDateTime(row.updated_at)}</td>
                </tr>
              );
            })}
          </ScrollTable>
          <Pager label="Payout terms pages" list={terms.data} onPage={(next) => setParams({ page: String(next) })} />
        </>
      ) : null}
    </>
  );
}
