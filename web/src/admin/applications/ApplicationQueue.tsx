import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { ApiBody, ApiQuery } from '../../api/client';
import { formatDateTime, shortIdentifier } from '../../ui/format';
import { PAGE_SIZES, pageFromUrl, Pager, PageSizeSelect } from '../../ui/Pager';
import { ErrorMessage, ListStates } from '../../ui/states';
import { useProject } from '../session';
import { ScrollTable, type TableColumn } from '../../ui/ScrollTable';
import { AudienceOptions } from '../audiences/AudienceOptions';
import { useCanWrite } from '../key-role';
import { decisionOutcome, type DecisionOutcome } from './outcome';

type Status = NonNullable<NonNullable<ApiQuery<'/api/v1/projects/{projectId}/applications', 'get'>>['status']>;
type Decision = ApiBody<'/api/v1/projects/{projectId}/applications/bulk', 'post'>;

/** A row's status in words, with the reason or note it was given. */
const STATUS_WORDS: Record<string, string> = { pending: 'Pending', on_hold: 'On hold', approved: 'Approved', rejected: 'Rejected' };

const STATUSES: Array<{ value: Status; label: string }> = [
  { value: 'pending', label: 'Pending' },
  { value: 'on_hold', label: 'On hold' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
];

/**
 * The applications queue: by status, 10/20/50/100 a page (both in the URL), and decisions on the
 * selected applications through the bulk endpoint, which answers per application: what went through
 * is said in a sentence with their names, those it could not decide are listed with the API's reason.
 * That outcome belongs to the view it was made in: another status, page or size clears it. Every
 * column fits at desktop width (long text wraps); on a phone each application is a card.
 */
export function ApplicationQueue() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status: Status = STATUSES.find((entry) => entry.value === params.get('status'))?.value ?? 'pending';
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 20;
  const page = pageFromUrl(params);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);
  const canWrite = useCanWrite();

  const list = useQuery({
    queryKey: ['applications', projectId, status, page, pageSize],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/applications', { path: { projectId }, query: { status, page, page_size: pageSize }, signal }),
    placeholderData: keepPreviousData,
  });
  const decide = useMutation({
    mutationFn: ({ decision }: { decision: Decision; names: ReadonlyMap<string, string> }) =>
      api('post', '/api/v1/projects/{projectId}/applications/bulk', { path: { projectId }, body: decision }),
    onMutate: () => setOutcome(null),
    onSuccess: (answer, { decision, names }) => {
      setOutcome(decisionOutcome(decision.action, answer.results, (id) => names.get(id) ?? id));
      setSelected(new Set());
      // Not awaited: the form's own onSuccess (which empties the reason) runs once this returns, so the outcome and the
      // emptied form show together, the lists following as they are read again.
      void queryClient.invalidateQueries({ queryKey: ['applications', projectId] });
      void queryClient.invalidateQueries({ queryKey: ['affiliates', projectId] });
    },
  });
  const setView = (next: { status?: Status; page_size?: number; page?: number }) => {
    setSelected(new Set());
    setOutcome(null);
    decide.reset();
    setParams({ status: next.status ?? status, page_size: String(next.page_size ?? pageSize), page: String(next.page ?? 1) });
  };
  const rows = list.data?.results ?? [];
  /** The selected applications' names as the page shows them, kept with the decision: the list is read again after it. */
  const selectedNames = () => new Map(rows.filter((row) => selected.has(row.id)).map((row) => [row.id, row.name || row.identifier]));
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
      {canWrite && (status === 'pending' || status === 'on_hold') ? (
        <DecisionForm
          ids={[...selected]}
          pending={decide.isPending}
          onDecide={(decision, done) => decide.mutate({ decision, names: selectedNames() }, { onSuccess: done })}
        />
      ) : null}
      <div role="status" aria-live="polite">
        {outcome?.sentence ?? ''}
      </div>
      {outcome && outcome.refused.length > 0 ? (
        <ul className="field-errors" aria-label="Applications not decided">
          {outcome.refused.map((refusal) => (
            <li key={refusal.id}>
              {refusal.name} was not decided: {refusal.reason}
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
          <div className="application-cards">
            <ScrollTable
              label="Applications table, scrollable"
              caption="Applications, oldest first"
              columns={[...(canWrite ? [selectAll] : []), 'Applicant', 'Region', 'Code asked', 'Message', 'Applied', 'Status']}
            >
              {rows.map((row) => (
                <tr key={row.id}>
                  {canWrite ? (
                    <td className="select-cell">
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
                  ) : null}
                  <td data-label="Applicant">
                    <span className="applicant-name">{row.name}</span>{' '}
                    <span className="subtle identifier" title={row.identifier}>
                      {shortIdentifier(row.identifier)}
                    </span>
                  </td>
                  <td data-label="Region">{row.region ?? '—'}</td>
                  <td data-label="Code asked">{row.code ?? '—'}</td>
                  <td data-label="Message" className="long-text">
                    {row.message ?? '—'}
                  </td>
                  <td data-label="Applied">{formatDateTime(row.created_at)}</td>
                  <td data-label="Status" className="long-text">
                    {STATUS_WORDS[row.status] ?? row.status}
                    {row.rejection_reason ? `: ${row.rejection_reason}` : ''}
                    {row.hold_note ? `: ${row.hold_note}` : ''}
                  </td>
                </tr>
              ))}
            </ScrollTable>
          </div>
          <Pager label="Application pages" list={list.data} onPage={(next) => setView({ page: next })} />
        </>
      ) : null}
    </section>
  );
}

/** Approve into a static audience, reject with a reason, or hold with a note: the selected applications. */
function DecisionForm({
  ids,
  pending,
  onDecide,
}: {
  ids: string[];
  pending: boolean;
  /** done: after the API decided, so the reason or note typed for these applications is not offered for the next ones. */
  onDecide(decision: Decision, done: () => void): void;
}) {
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
    const done = () => setText('');
    if (action === 'approve') onDecide({ action, application_ids: ids, audience_id: audienceId }, done);
    else if (action === 'reject') onDecide({ action, application_ids: ids, reason: text }, done);
    else onDecide({ action, application_ids: ids, ...(text ? { note: text } : {}) }, done);
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
