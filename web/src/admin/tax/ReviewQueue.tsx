import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router-dom';
import { formatDateTime, shortIdentifier } from '../../ui/format';
import { PAGE_SIZES, pageFromUrl, Pager, PageSizeSelect } from '../../ui/Pager';
import { ListStates } from '../../ui/states';
import { FORM_NAMES } from '../../portal/tax/tax-status';
import { useProject } from '../session';
import { ReviewActions } from './ReviewActions';
import { ownerOf, RECORD_STATUSES, type RecordStatus, TAX_PATHS, type TaxSubmission, taxIdText, taxKeys } from './tax-records';
import { ScrollTable } from '../../ui/ScrollTable';
import { ANY_STATUS, StatusFilter, statusFromUrl } from '../../ui/StatusFilter';

/**
 * The review queue: the project's current tax forms, `submitted` first by default, any status on
 * demand, paged (all of it in the URL). Tax ids are masked, as the list answers them. Each row
 * opens the affiliate's record and can be approved or revoked in place.
 */
export function ReviewQueue() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const statusParam = params.get('status');
  const status = statusFromUrl<RecordStatus>(statusParam, RECORD_STATUSES, 'submitted');
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 20;
  const page = pageFromUrl(params);
  const setView = (next: { status?: string; page_size?: number; page?: number }) =>
    setParams({ status: next.status ?? status, page_size: String(next.page_size ?? pageSize), page: String(next.page ?? 1) });

  const list = useQuery({
    queryKey: [...taxKeys.submissions(projectId), status, page, pageSize],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/tax-submissions', {
        path: { projectId },
        query: { status: status === ANY_STATUS ? undefined : status, page, page_size: pageSize },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  const rows = list.data?.results ?? [];
  const empty = status === 'submitted' ? 'No tax forms await review.' : status === ANY_STATUS ? 'No tax forms yet.' : `No ${status} tax forms.`;

  return (
    <section aria-labelledby="tax-queue-title">
      <h1 id="tax-queue-title">Tax forms</h1>
      <div className="inline-fields">
        <div>
          <StatusFilter id="tax-status-filter" value={status} statuses={RECORD_STATUSES} onChange={(next) => setView({ status: next })} />
        </div>
        <div>
          <PageSizeSelect id="tax-page-size" value={pageSize} onChange={(size) => setView({ page_size: size })} />
        </div>
      </div>
      <ListStates query={list} loading="Loading tax forms…" empty={empty} />
      {list.data && rows.length > 0 ? (
        <>
          <ScrollTable
            label="Tax forms table, scrollable"
            caption="Tax forms, oldest submission first"
            columns={['Affiliate', 'Form', 'Country', 'Tax id (masked)', 'Submitted', 'Status', 'Review']}
          >
            {rows.map((row) => (
              <QueueRow key={row.id} row={row} />
            ))}
          </ScrollTable>
          <Pager label="Tax form pages" list={list.data} onPage={(next) => setView({ page: next })} />
        </>
      ) : null}
    </section>
  );
}

function QueueRow({ row }: { row: TaxSubmission }) {
  const owner = ownerOf(row);
  return (
    <tr>
      <td>
        {/* The row's record travels with the link: the API has no masked read of one record. */}
        <Link to={TAX_PATHS.record(owner)} className="tax-record-link">
          {row.legal_name}
        </Link>{' '}
        <span className="subtle identifier" title={row.user_identifier}>
          {shortIdentifier(row.user_identifier)}
        </span>
      </td>
      <td>{FORM_NAMES[row.form_type]}</td>
      <td>{row.country}</td>
      <td>{row.unreadable ? <span className="restriction">Unreadable (record {row.id})</span> : taxIdText(row)}</td>
      <td>{formatDateTime(row.submitted_at)}</td>
      <td>
        {row.status}
        {row.revoked_reason ? `: ${row.revoked_reason}` : ''}
      </td>
      <td>
        <ReviewActions owner={owner} status={row.status} name={row.legal_name} />
      </td>
    </tr>
  );
}
