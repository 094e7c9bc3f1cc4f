import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { formatBasisPoints, formatDateTime, formatDecimal, formatUsd, shortIdentifier } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ListStates, Notice } from '../../ui/states';
import { useProject } from '../session';
import { DesignateMaster } from './DesignateMaster';
import { Amounts } from './figures';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

const PAGE_SIZE = 25;

/** The project's master affiliates, newest designation first, with what each brought; and the form that designates one. */
export function MasterList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  // A removal on the detail page comes back here saying what it did.
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const page = pageFromUrl(params);
  const masters = useQuery({
    queryKey: ['masters', projectId, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/agencies', { path: { projectId }, query: { page, page_size: PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="masters-title">
      <h1 id="masters-title">Master affiliates</h1>
      <Notice notice={notice} />
      <ListStates query={masters} loading="Loading master affiliates…" empty="No master affiliates yet. Designate an affiliate below." />
      {masters.data && masters.data.results.length > 0 ? (
        <>
          <ScrollTable
            label="Master affiliates table, scrollable"
            caption="Master affiliates, newest designation first"
            columns={['Master', numeric('Spread'), numeric('Sub-affiliates'), numeric('Referred volume'), 'Earnings', 'Designated']}
          >
            {masters.data.results.map((master) => (
              <tr key={master.id}>
                <td>
                  <Link to={master.id}>{master.name || master.identifier}</Link>
                  {/* The name leads to the master's page, which links its affiliate page. */}
                  <div className="subtle identifier" title={master.identifier}>
                    {shortIdentifier(master.identifier)}
                  </div>
                </td>
                <td className="number">{formatBasisPoints(master.spread_bps)}</td>
                <td className="number">{formatDecimal(master.sub_affiliates_count)}</td>
                <td className="number">{formatUsd(master.referred_volume_usd)}</td>
                <td>
                  <Amounts amounts={master.earnings} label={`Earnings of ${master.name || master.identifier}`} />
                </td>
                <td>{formatDateTime(master.designated_at)}</td>
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Master affiliate pages" list={masters.data} onPage={(next) => setParams({ page: String(next) })} />
        </>
      ) : null}
      <DesignateMaster />
    </section>
  );
}
