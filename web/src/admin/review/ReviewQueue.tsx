import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { formatCount, formatDateTime, shortIdentifier } from '../../ui/format';
import { PAGE_SIZES, pageFromUrl, PageSizeSelect } from '../../ui/Pager';
import { PagedTable } from '../../ui/PagedTable';
import { ANY_STATUS, StatusFilter, statusFromUrl } from '../../ui/StatusFilter';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';
import {
  type Decision,
  outcomeSentence,
  type ReviewRow,
  type ReviewRule,
  type ReviewStatus,
  reviewKeys,
  RULE_NAMES,
  RULES,
  ruleSentence,
} from './review';

const STATUSES: Array<{ value: ReviewStatus; label: string }> = [
  { value: 'open', label: 'Waiting for a decision' },
  { value: 'decided', label: 'Decided' },
];

/**
 * The review queue: the conversions the review rules flagged, newest first, open ones by default,
 * filtered by rule, status and user, paged (all of it in the URL). Open rows can be selected and
 * approved or declined together (a decline asks its reason in a confirmation); what each
 * conversion's decision did is shown as a sentence. The list needs an admin key: a read_only key
 * is told so, and is never offered a decision.
 */
export function ReviewQueue() {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const statusParam = params.get('status');
  const status = statusFromUrl<ReviewStatus>(statusParam, STATUSES, 'open');
  const rule = RULES.find((entry) => entry === params.get('rule'));
  const user = params.get('user')?.trim() || undefined;
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 20;
  const page = pageFromUrl(params);
  const setView = (next: { status?: string; rule?: string; user?: string; page_size?: number; page?: number }) => {
    const view = new URLSearchParams({ status: next.status ?? status, page_size: String(next.page_size ?? pageSize), page: String(next.page ?? 1) });
    const nextRule = next.rule ?? rule ?? '';
    const nextUser = next.user ?? user ?? '';
    if (nextRule) view.set('rule', nextRule);
    if (nextUser) view.set('user', nextUser);
    setParams(view);
    setSelected(new Set());
  };
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcomes, setOutcomes] = useState<{ action: string; results: Decision[] } | null>(null);
  const [declining, setDeclining] = useState(false);

  const list = useQuery({
    queryKey: [...reviewKeys.all(projectId), status, rule, user, page, pageSize],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/review', {
        path: { projectId },
        query: { status: status === ANY_STATUS ? undefined : status, rule, user_identifier: user, page, page_size: pageSize },
        signal,
      }),
    placeholderData: keepPreviousData,
    // The backend flags conversions as they are paid: each visit reads the queue again.
    staleTime: 0,
  });
  const open = (list.data?.results ?? []).filter((row) => row.status === 'open');
  const chosen = open.filter((row) => selected.has(row.conversion_id)).map((row) => row.conversion_id);
  const decided = async (action: string, results: Decision[]) => {
    setOutcomes({ action, results });
    setSelected(new Set());
    await queryClient.invalidateQueries({ queryKey: reviewKeys.all(projectId) });
  };
  const approve = useMutation({
    mutationFn: (ids: string[]) =>
      api('post', '/api/v1/projects/{projectId}/movements/approve', { path: { projectId }, body: { conversion_ids: ids } }),
    onSuccess: (answer) => decided('Approved', answer.results),
  });
  const forbidden = list.error instanceof ApiError && list.error.status === 403;
  const empty =
    status === 'open' ? 'No conversions wait for review.' : status === ANY_STATUS ? 'No conversions were flagged.' : 'No decided reviews.';
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <section aria-labelledby="review-queue-title">
      <h1 id="review-queue-title">Review queue</h1>
      <p className="subtle">
        Conversions that broke a review rule: their payouts wait until an admin approves or declines them. The rules are in the review settings.
      </p>
      <Filters status={status} rule={rule} user={user} pageSize={pageSize} onChange={setView} />
      {forbidden ? (
        <p className="state state-error" role="alert">
          Only an admin key may read the review queue and decide its conversions; this key may not.
        </p>
      ) : (
        <>
          {open.length > 0 ? (
            <div className="inline-fields" role="group" aria-label="Decide the selected conversions">
              <span>{chosen.length === 0 ? 'Select conversions to decide them.' : `${chosen.length} selected.`}</span>
              <button type="button" className="primary" disabled={chosen.length === 0 || approve.isPending} onClick={() => approve.mutate(chosen)}>
                {approve.isPending ? 'Approving…' : 'Approve selected'}
              </button>
              <button type="button" disabled={chosen.length === 0} onClick={() => setDeclining(true)}>
                Decline selected…
              </button>
            </div>
          ) : null}
          {approve.isError ? <ErrorMessage error={approve.error} title="Not approved" /> : null}
          <div role="status" aria-live="polite">
            {outcomes ? (
              <>
                <p>
                  {outcomes.action} {formatCount(outcomes.results.length, 'conversion')}:
                </p>
                <ul className="outcomes">
                  {outcomes.results.map((result) => (
                    <li key={result.conversion_id}>{outcomeSentence(result)}</li>
                  ))}
                </ul>
              </>
            ) : null}
          </div>
          <PagedTable
            query={list}
            loading="Loading the review queue…"
            empty={empty}
            table={{
              label: 'Flagged conversions table, scrollable',
              caption: 'Flagged conversions, newest first',
              columns: [
                {
                  key: 'select',
                  label: (
                    <SelectAll
                      open={open.map((row) => row.conversion_id)}
                      chosen={chosen.length}
                      onChange={(on) => setSelected(new Set(on ? open.map((row) => row.conversion_id) : []))}
                    />
                  ),
                },
                'Conversion',
                'User',
                'Rules broken',
                'Flagged',
                'Status',
              ],
            }}
            row={(row) => <QueueRow key={row.conversion_id} row={row} selected={selected.has(row.conversion_id)} onSelect={toggle} />}
            pagerLabel="Review queue pages"
            onPage={(next) => setView({ page: next })}
          />
          {declining ? (
            <DeclineDialog ids={chosen} onClose={() => setDeclining(false)} onDeclined={(results) => decided('Declined', results)} />
          ) : null}
        </>
      )}
    </section>
  );
}

function Filters({
  status,
  rule,
  user,
  pageSize,
  onChange,
}: {
  status: string;
  rule: ReviewRule | undefined;
  user: string | undefined;
  pageSize: number;
  onChange(next: { status?: string; rule?: string; user?: string; page_size?: number }): void;
}) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onChange({ user: String(new FormData(event.currentTarget).get('user') ?? '').trim() });
  };
  return (
    <div className="inline-fields">
      <div>
        <StatusFilter id="review-status-filter" value={status} statuses={STATUSES} onChange={(next) => onChange({ status: next })} />
      </div>
      <div>
        <label htmlFor="review-rule-filter">Rule broken</label>
        <select id="review-rule-filter" value={rule ?? ''} onChange={(event) => onChange({ rule: event.target.value })}>
          <option value="">Any rule</option>
          {RULES.map((entry) => (
            <option key={entry} value={entry}>
              {RULE_NAMES[entry]}
            </option>
          ))}
        </select>
      </div>
      <form className="inline-fields" onSubmit={onSubmit} key={user ?? ''}>
        <div>
          <label htmlFor="review-user-filter">User (EVM address)</label>
          <input id="review-user-filter" name="user" defaultValue={user ?? ''} autoComplete="off" spellCheck={false} />
        </div>
        <button type="submit">Filter by user</button>
      </form>
      <div>
        <PageSizeSelect id="review-page-size" value={pageSize} onChange={(size) => onChange({ page_size: size })} />
      </div>
    </div>
  );
}

/** The heading's checkbox: every open conversion of the page, or none. */
function SelectAll({ open, chosen, onChange }: { open: string[]; chosen: number; onChange(on: boolean): void }) {
  if (open.length === 0) return <span className="visually-hidden">Select</span>;
  return (
    <input
      type="checkbox"
      aria-label="Select every open conversion of this page"
      checked={chosen === open.length}
      ref={(input) => {
        if (input) input.indeterminate = chosen > 0 && chosen < open.length;
      }}
      onChange={(event) => onChange(event.target.checked)}
    />
  );
}

/** The conversion on the conversions page: the list narrowed to its user, it open below. */
function conversionPath(row: ReviewRow): string {
  const view = new URLSearchParams({
    user_identifier: row.user_identifier,
    user_identifier_type: row.user_identifier_type,
    selected: row.conversion_id,
  });
  return `/admin/payouts/conversions?${view}`;
}

function QueueRow({ row, selected, onSelect }: { row: ReviewRow; selected: boolean; onSelect(id: string, on: boolean): void }) {
  return (
    <tr>
      <td>
        {row.status === 'open' ? (
          <input
            type="checkbox"
            aria-label={`Select conversion ${row.conversion_id}`}
            checked={selected}
            onChange={(event) => onSelect(row.conversion_id, event.target.checked)}
          />
        ) : null}
      </td>
      <td className="identifier">
        <Link to={conversionPath(row)}>{row.conversion_id}</Link>
      </td>
      <td>
        <span className="identifier" title={row.user_identifier}>
          {shortIdentifier(row.user_identifier)}
        </span>{' '}
        <span className="subtle">({row.user_identifier_type})</span>
      </td>
      <td>
        <ul className="review-rules">
          {row.rules.map((broken) => (
            <li key={broken.rule}>{ruleSentence(broken)}</li>
          ))}
        </ul>
      </td>
      <td>{formatDateTime(row.flagged_at)}</td>
      <td className="review-status">
        {row.status === 'open'
          ? 'Waiting for a decision'
          : `${row.decision === 'declined' ? 'Declined' : 'Approved'} ${formatDateTime(row.decided_at)}`}
      </td>
    </tr>
  );
}

/** The confirmation before a decline (never paid, cannot be undone), asking for its reason. */
function DeclineDialog({ ids, onClose, onDeclined }: { ids: string[]; onClose(): void; onDeclined(results: Decision[]): Promise<void> }) {
  const { projectId, api } = useProject();
  const [reason, setReason] = useState('');
  const fieldIds = { reason: useId(), reasonError: useId() };
  const decline = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/movements/decline', {
        path: { projectId },
        body: { conversion_ids: ids, ...(reason.trim() ? { reason: reason.trim() } : {}) },
      }),
    onSuccess: async (answer) => {
      onClose();
      await onDeclined(answer.results);
    },
  });
  const reasonError = fieldErrors(decline.error).reason;
  return (
    <ConfirmMutationDialog
      open
      title={`Decline ${formatCount(ids.length, 'conversion')}?`}
      confirmLabel="Decline"
      mutation={decline}
      onClose={onClose}
    >
      <p>Their waiting payouts are declined and will never be paid. This cannot be undone.</p>
      <label htmlFor={fieldIds.reason}>Reason (kept on the declined payouts)</label>
      <textarea
        id={fieldIds.reason}
        value={reason}
        maxLength={500}
        onChange={(event) => setReason(event.target.value)}
        rows={3}
        aria-invalid={reasonError ? true : undefined}
        aria-describedby={reasonError ? fieldIds.reasonError : undefined}
      />
      <FieldError id={fieldIds.reasonError} message={reasonError} />
    </ConfirmMutationDialog>
  );
}
