import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiQuery } from '../../api/client';
import { formatCount, formatDateTime, formatDecimal, shortIdentifier } from '../../ui/format';
import { IDENTIFIER_TYPES } from '../../ui/identifier-types';
import { pageFromUrl, Pager } from '../../ui/Pager';
import { ListStates } from '../../ui/states';
import { AffiliateLink } from '../affiliates/AffiliateLink';
import { useProject } from '../session';
import { ConversionDetail } from './ConversionDetail';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { SidePanel } from '../../ui/SidePanel';

type Query = NonNullable<ApiQuery<'/api/v1/projects/{projectId}/conversions', 'get'>>;
type Status = NonNullable<Query['status']>;

const STATUSES: Status[] = ['accepted', 'processed', 'no_terms', 'failed'];
const PAGE_SIZE = 25;
/** The filters, as the URL and the API name them. */
const FILTERS = ['status', 'name', 'user_identifier', 'user_identifier_type'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** The project's conversions, newest first, filtered from the URL; the selected one's status and movements in a side panel. */
export function ConversionList() {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ''])) as Filters;
  const page = pageFromUrl(params);
  const selected = params.get('selected');
  const [draft, setDraft] = useState<Filters>(applied);
  /** The row that opened the panel: focus goes back to it when the panel closes. */
  const opener = useRef<HTMLButtonElement | null>(null);
  const query: Query = {
    page,
    page_size: PAGE_SIZE,
    status: (applied.status || undefined) as Status | undefined,
    name: applied.name || undefined,
    user_identifier: applied.user_identifier || undefined,
    user_identifier_type: applied.user_identifier ? applied.user_identifier_type || undefined : undefined,
  };
  const conversions = useQuery({
    queryKey: ['conversions', projectId, query],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/conversions', { path: { projectId }, query, signal }),
    placeholderData: keepPreviousData,
  });

  const show = (next: Partial<Filters> & { page?: string; selected?: string | null }) => {
    const values = { ...applied, page: String(page), selected: selected ?? '', ...next };
    setParams(
      Object.fromEntries(Object.entries(values).filter(([name, value]) => value && !(name === 'page' && value === '1'))) as Record<string, string>,
    );
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    show({ ...draft, name: draft.name.trim(), user_identifier: draft.user_identifier.trim(), page: '1', selected: null });
  };
  const clear = () => {
    const empty = { status: '', name: '', user_identifier: '', user_identifier_type: '' };
    setDraft(empty);
    show({ ...empty, page: '1', selected: null });
  };
  const chosen = conversions.data?.results.find((conversion) => conversion.id === selected);

  return (
    <>
      <h2 id="conversions-title">Conversions</h2>
      <form className="filters" onSubmit={apply} aria-label="Filter conversions">
        <div>
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={draft.status} onChange={(event) => setDraft({ ...draft, status: event.target.value })}>
            <option value="">Any status</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-name">Conversion name</label>
          <input id="filter-name" value={draft.name} onChange={(event) => setDraft({ ...draft, name: event.target.value })} />
        </div>
        <div>
          <label htmlFor="filter-user">User identifier</label>
          <input id="filter-user" value={draft.user_identifier} onChange={(event) => setDraft({ ...draft, user_identifier: event.target.value })} />
        </div>
        <div>
          <label htmlFor="filter-user-type">Identifier type</label>
          <select
            id="filter-user-type"
            value={draft.user_identifier_type}
            onChange={(event) => setDraft({ ...draft, user_identifier_type: event.target.value })}
          >
            {IDENTIFIER_TYPES.map((type) => (
              <option key={type} value={type === 'evm_address' ? '' : type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div className="filter-actions">
          <button type="submit">Apply filters</button>
          <button type="button" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      <ListStates query={conversions} loading="Loading conversions…" empty="No conversions match." />
      {conversions.data && conversions.data.results.length > 0 ? (
        <>
          <p className="count" role="status">
            {formatCount(conversions.data.total_results, 'conversion')}
          </p>
          <ScrollTable
            labelledBy="conversions-title"
            caption="Conversions, newest first"
            columns={['Id', 'Name', 'User', 'Referred by', 'Status', numeric('Movements'), numeric('reward_base'), 'Received']}
          >
            {conversions.data.results.map((conversion) => (
              <tr key={conversion.id} aria-current={conversion.id === selected ? 'true' : undefined} className="conversion-row">
                <td>
                  <button
                    type="button"
                    className="link-button"
                    aria-haspopup="dialog"
                    aria-expanded={conversion.id === selected}
                    aria-controls={conversion.id === selected ? 'conversion-detail' : undefined}
                    onClick={(event) => {
                      opener.current = event.currentTarget;
                      show({ selected: conversion.id === selected ? null : conversion.id });
                    }}
                  >
                    {conversion.id}
                  </button>
                </td>
                <td>{conversion.name}</td>
                <td className="identifier" title={conversion.user_identifier}>
                  {shortIdentifier(conversion.user_identifier)}
                </td>
                <td>
                  {conversion.attribution ? (
                    <AffiliateLink
                      identifier={conversion.attribution.affiliate.user_identifier}
                      identifierType={conversion.attribution.affiliate.user_identifier_type}
                    />
                  ) : (
                    '—'
                  )}
                </td>
                <td className="conversion-status">{conversion.status}</td>
                <td className="number">{conversion.movements.length}</td>
                <td className="number">{conversion.reward_base === null ? '—' : formatDecimal(conversion.reward_base)}</td>
                <td>{formatDateTime(conversion.received_at)}</td>
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Conversion pages" list={conversions.data} onPage={(next) => show({ page: String(next), selected: null })} />
        </>
      ) : null}
      {chosen ? (
        <SidePanel
          key={chosen.id}
          id="conversion-detail"
          labelledBy="conversion-detail-title"
          onClose={() => show({ selected: null })}
          returnFocusTo={opener}
        >
          <ConversionDetail conversion={chosen} />
        </SidePanel>
      ) : null}
    </>
  );
}
