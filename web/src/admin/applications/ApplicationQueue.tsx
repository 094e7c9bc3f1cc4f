import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiBody, ApiQuery } from '../../api/client';
import { formatDateTime } from '../../ui/format';
import { PAGE_SIZES, pageFromUrl, Pager, PageSizeSelect } from '../../ui/Pager';
import { ErrorMessage, ListStates } from '../../ui/states';
import { useProject } from '../session';
import { ScrollTable, type TableColumn } from '../../ui/ScrollTable';
import { AudienceOptions } from '../audiences/AudienceOptions';

type Status = NonNullable<NonNullable<ApiQuery<'/api/v1/projects/{projectId}/applications', 'get'>>['status']>;
type Decision = ApiBody<'/api/v1/projects/{projectId}/applications/bulk', 'post'>;

const STATUSES: Array<{ value: Status; label: string }> = [
  { value: 'pending', label: 'Pending' },
  { value: 'on_hold', label: 'On hold' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
];

/**
 * The applications queue: by status, 10/20/50/100 a page (both in the URL), and decisions on the
 * selected applications through the bulk endpoint, which answers per application: those it could
 * not decide are listed with the API's reason while the others go through.
 */
export function ApplicationQueue() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status: Status = STATUSES.find((entry) => entry.value === params.get('status'))?.value ?? 'pending';
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 20;
  const page = pageFromUrl(params);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const setView = (next: { status?: Status; page_size?: number; page?: number }) => {
    setSelected(new Set());
    setParams({ status: next.status ?? status, page_size: String(next.page_size ?? pageSize), page: String(next.page ?? 1) });
  };

  const list = useQuery({
    queryKey: ['applications', projectId, status, page, pageSize],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/applications', { path: { projectId }, query: { status, page, page_size: pageSize }, signal }),
    placeholderData: keepPreviousData,
  });
  const decide = useMutation({
    mutationFn: (decision: Decision) => api('post', '/api/v1/projects/{projectId}/applications/bulk', { path: { projectId }, body: decision }),
    onSuccess: async () => {
      setSelected(new Set());
      await queryClient.invalidateQueries({ queryKey: ['applications', projectId] });
      await queryClient.invalidateQueries({ queryKey: ['affiliates', projectId] });
    },
  });
  const failures = decide.data?.results.filter((result) => !result.ok) ?? [];
  const decided = decide.data?.results.filter((result) => result.ok).length ?? 0;
  const rows = list.data?.results ?? [];
  const allSelected = rows.length > 0 && rows.every((row) => selected.has(row.id));
  const selectAll: TableColumn = {
    key: 'select',
    label: (
      <input
        type="checkbox"
        aria-label="Select every application on this page"
        checked={allSelected}
        onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((row) => row.id)))}
      />
    ),
  };

  return (
    <section aria-labelledby="applications-title">
      <h1 id="applications-title">Applications</h1>
      <div className="inline-fields">
        <div>
          <label htmlFor="application-status">Status</label>
          <select id="application-status" value={status} onChange={(event) => setView({ status: event.target.value as Status })}>
            {STATUSES.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <PageSizeSelect id="application-page-size" value={pageSize} onChange={(size) => setView({ page_size: size })} />
        </div>
      </div>
      {status === 'pending' || status === 'on_hold' ? (
        <DecisionForm ids={[...selected]} pending={decide.isPending} onDecide={(decision) => decide.mutate(decision)} />
      ) : null}
      <div role="status" aria-live="polite">
        {decide.data ? `${decided} decided${failures.length ? `, ${failures.length} not` : ''}.` : ''}
      </div>
      {failures.length > 0 ? (
        <ul className="field-errors" aria-label="Applications not decided">
          {failures.map((failure) => (
            <li key={failure.application_id}>
              {failure.application_id}: {failure.error?.message}
            </li>
          ))}
        </ul>
      ) : null}
      {decide.isError ? <ErrorMessage error={decide.error} title="Nothing was decided" /> : null}
      <ListStates
        query={list}
        loading="Loading applications…"
        empty={<>No {STATUSES.find((entry) => entry.value === status)?.label.toLowerCase()} applications.</>}
      />
      {list.data && rows.length > 0 ? (
        <>
          <ScrollTable
            label="Applications table, scrollable"
            caption="Applications, oldest first"
            columns={[selectAll, 'Applicant', 'Region', 'Code asked', 'Message', 'Applied', 'Status']}
          >
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${row.name}`}
                    checked={selected.has(row.id)}
                    onChange={() => {
                      const next = new Set(selected);
                      if (!next.delete(row.id)) next.add(row.id);
                      setSelected(next);
                    }}
                  />
                </td>
                <td>
                  <span className="applicant-name">{row.name}</span> <span className="subtle identifier">{row.identifier}</span>
                </td>
                <td>{row.region ?? '—'}</td>
                <td>{row.code ?? '—'}</td>
                <td>{row.message ?? '—'}</td>
                <td>{formatDateTime(row.created_at)}</td>
                <td>
                  {row.status}
                  {row.rejection_reason ? `: ${row.rejection_reason}` : ''}
                  {row.hold_note ? `: ${row.hold_note}` : ''}
                </td>
              </tr>
            ))}
          </ScrollTable>
          <Pager label="Application pages" list={list.data} onPage={(next) => setView({ page: next })} />
        </>
      ) : null}
    </section>
  );
}

/** Approve into a static audience, reject with a reason, or hold with a note: the selected applications. */
function DecisionForm({ ids, pending, onDecide }: { ids: string[]; pending: boolean; onDecide(decision: Decision): void }) {
  const { projectId, api } = useProject();
  const [action, setAction] = useState<Decision['action']>('approve');
  const [audienceId, setAudienceId] = useState('');
  const [text, setText] = useState('');
  const audiences = useQuery({
    queryKey: ['audiences', projectId, 'all'],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/audiences', { path: { projectId }, query: { page_size: 100 }, signal }),
  });
  const staticAudiences = audiences.data?.results.filter((audience) => audience.type === 'static') ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (action === 'approve') onDecide({ action, application_ids: ids, audience_id: audienceId });
    else if (action === 'reject') onDecide({ action, application_ids: ids, reason: text });
    else onDecide({ action, application_ids: ids, ...(text ? { note: text } : {}) });
  };
  return (
    <form className="inline-fields decision" onSubmit={submit} aria-label="Decide the selected applications">
      <div>
        <label htmlFor="decision-action">Decision</label>
        <select id="decision-action" value={action} onChange={(event) => setAction(event.target.value as Decision['action'])}>
          <option value="approve">Approve</option>
          <option value="reject">Reject</option>
          <option value="hold">Hold</option>
        </select>
      </div>
      {action === 'approve' ? (
        <div>
          <label htmlFor="decision-audience">Into the audience</label>
          <select id="decision-audience" value={audienceId} onChange={(event) => setAudienceId(event.target.value)} required>
            <option value="">Choose a static audience</option>
            <AudienceOptions audiences={staticAudiences} />
          </select>
        </div>
      ) : (
        <div>
          <label htmlFor="decision-text">{action === 'reject' ? 'Reason (shown to the applicant)' : 'Note (optional)'}</label>
          <input id="decision-text" value={text} onChange={(event) => setText(event.target.value)} required={action === 'reject'} maxLength={500} />
        </div>
      )}
      <button type="submit" disabled={pending || ids.length === 0}>
        {pending ? 'Deciding…' : `${action === 'approve' ? 'Approve' : action === 'reject' ? 'Reject' : 'Hold'} ${ids.length} selected`}
      </button>
    </form>
  );
}
