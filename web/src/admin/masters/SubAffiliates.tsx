import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiQuery, ApiResult } from '../../api/client';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatDateTime, formatDecimal, formatUsd, shortIdentifier } from '../../ui/format';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ListStates } from '../../ui/states';
import { useProject } from '../session';
import { AffiliateLink } from '../affiliates/AffiliateLink';
import { Amounts } from './figures';
import { refreshMaster, subAffiliatesKey } from './queries';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

type ListQuery = NonNullable<ApiQuery<'/api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates', 'get'>>;
type SortBy = NonNullable<ListQuery['sort_by']>;
type SubAffiliate = ApiResult<'/api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates', 'get'>['results'][number];

const PAGE_SIZE = 10;
const SORTS: Array<{ value: SortBy; label: string }> = [
  { value: 'bound_at', label: 'Newest binding' },
  { value: 'referred_volume', label: 'Volume brought to this master' },
  { value: 'referred_conversions', label: 'Conversions brought to this master' },
  { value: 'volume_usd', label: 'Own volume' },
  { value: 'revenue_usd', label: 'Own revenue' },
  { value: 'conversions', label: 'Own conversions' },
  { value: 'name', label: 'Name' },
];
const SHOWN = [
  { value: '', label: 'Bound now and former' },
  { value: 'true', label: 'Bound now' },
  { value: 'false', label: 'Former' },
] as const;

/**
 * The master's sub-affiliates, former ones included: what each brought this master while bound
 * (its volume and the master's earnings from it), and its own figures. Sort, filter and page live in the URL.
 */
export function SubAffiliates({ agencyId }: { agencyId: string }) {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const sortBy = SORTS.find((sort) => sort.value === params.get('sort_by'))?.value ?? 'bound_at';
  const bound = SHOWN.find((shown) => shown.value === params.get('bound'))?.value ?? '';
  const page = pageFromUrl(params);
  const [unbinding, setUnbinding] = useState<SubAffiliate | null>(null);
  const setView = (next: { sort_by?: string; bound?: string; page?: number }) => {
    const view = { sort_by: next.sort_by ?? sortBy, bound: next.bound ?? bound, page: String(next.page ?? 1) };
    setParams(Object.fromEntries(Object.entries(view).filter(([, value]) => value !== '')));
  };
  const list = useQuery({
    queryKey: [...subAffiliatesKey(projectId, agencyId), sortBy, bound, page],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates', {
        path: { projectId, agencyId },
        query: { sort_by: sortBy, bound: bound || undefined, page, page_size: PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="subs-title">
      <h2 id="subs-title">Sub-affiliates</h2>
      <div className="inline-fields">
        <div>
          <label htmlFor="subs-sort">Sort by</label>
          <select id="subs-sort" value={sortBy} onChange={(event) => setView({ sort_by: event.target.value })}>
            {SORTS.map((sort) => (
              <option key={sort.value} value={sort.value}>
                {sort.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="subs-bound">Show</label>
          <select id="subs-bound" value={bound} onChange={(event) => setView({ bound: event.target.value })}>
            {SHOWN.map((shown) => (
              <option key={shown.value} value={shown.value}>
                {shown.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ListStates
        query={list}
        loading="Loading sub-affiliates…"
        empty={bound ? 'No sub-affiliates here.' : 'No sub-affiliates yet: bind some above.'}
      />
      {list.data && list.data.results.length > 0 ? (
        <>
          <ScrollTable
            label="Sub-affiliates table, scrollable"
            caption={<>Sub-affiliates, sorted by {SORTS.find((sort) => sort.value === sortBy)?.label.toLowerCase()}</>}
            columns={[
              'Sub-affiliate',
              'Binding',
              numeric('Volume brought'),
              numeric('Conversions brought'),
              'Master earned from it',
              numeric('Own volume'),
              numeric('Own conversions'),
              'Own earnings',
              { key: 'actions', label: <span className="visually-hidden">Actions</span> },
            ]}
          >
            {list.data.results.map((sub) => (
              <SubAffiliateRow key={sub.id} sub={sub} onUnbind={setUnbinding} />
            ))}
          </ScrollTable>
          <Pager label="Sub-affiliate pages" list={list.data} onPage={(next) => setView({ page: next })} />
        </>
      ) : null}
      <UnbindDialog sub={unbinding} agencyId={agencyId} onClose={() => setUnbinding(null)} />
    </section>
  );
}

function SubAffiliateRow({ sub, onUnbind }: { sub: SubAffiliate; onUnbind(sub: SubAffiliate): void }) {
  const name = sub.name || sub.identifier;
  return (
    <tr>
      <td>
        <AffiliateLink identifier={sub.identifier} identifierType={sub.identifier_type} name={sub.name} />
        {sub.name ? (
          <div className="subtle identifier" title={sub.identifier}>
            {shortIdentifier(sub.identifier)}
          </div>
        ) : null}
      </td>
      <td>{sub.bound ? `bound since ${formatDateTime(sub.bound_at)}` : `former, until ${formatDateTime(sub.unbound_at)}`}</td>
      <td className="number brought-volume">{formatUsd(sub.referred_volume_usd)}</td>
      <td className="number">{formatDecimal(sub.referred_conversions)}</td>
      <td className="brought-earnings">
        <Amounts amounts={sub.agency_earnings} label={`The master’s earnings from ${name}`} />
      </td>
      <td className="number">{formatUsd(sub.volume_usd)}</td>
      <td className="number">{formatDecimal(sub.conversions)}</td>
      <td>
        <Amounts amounts={sub.earnings} label={`Earnings of ${name}`} />
      </td>
      <td>
        {sub.bound ? (
          <button type="button" className="danger-outline" aria-label={`Unbind ${name}`} onClick={() => onUnbind(sub)}>
            Unbind
          </button>
        ) : null}
      </td>
    </tr>
  );
}

/** The question before an unbinding, outside the table (a modal dialog), and the unbinding itself. */
function UnbindDialog({ sub, agencyId, onClose }: { sub: SubAffiliate | null; agencyId: string; onClose(): void }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const unbind = useMutation({
    mutationFn: (target: SubAffiliate) =>
      api('delete', '/api/v1/projects/{projectId}/agencies/{agencyId}/sub-affiliates/{userIdentifier}', {
        path: { projectId, agencyId, userIdentifier: target.identifier },
        query: { identifier_type: target.identifier_type },
      }),
    onSuccess: async () => {
      onClose();
      await refreshMaster(queryClient, projectId, agencyId);
    },
  });
  return (
    <ConfirmDialog
      open={sub !== null}
      title={`Unbind ${sub ? sub.name || sub.identifier : ''}?`}
      confirmLabel="Yes, unbind"
      pending={unbind.isPending}
      error={unbind.error}
      onConfirm={() => sub && unbind.mutate(sub)}
      onCancel={() => {
        unbind.reset();
        onClose();
      }}
    >
      <p>Conversions from now on pay this master nothing for it. What it brought while bound keeps counting.</p>
    </ConfirmDialog>
  );
}
