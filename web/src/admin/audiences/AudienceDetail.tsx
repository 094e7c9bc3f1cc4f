import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { formatDateTime, formatDecimal } from '../../ui/format';
import { PagedTable } from '../../ui/PagedTable';
import { pageFromUrl } from '../../ui/Pager';
import { LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { describeCondition } from './condition';
import { BadgeEditor } from './BadgeEditor';
import { CsvUpload } from './CsvUpload';
import { AudienceSettings } from './AudienceSettings';
import { DeleteAudience } from './DeleteAudience';
import { Evaluation } from './Evaluation';
import { type EntryToRemove, RemoveEntryDialog } from './RemoveEntry';
import { WritesOnly } from '../key-role';

const PAGE_SIZE = 25;

export function AudienceDetail() {
  const { projectId, api } = useProject();
  const audienceId = useParams().audienceId ?? '';
  const audience = useQuery({
    queryKey: ['audience', projectId, audienceId],
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/audiences/{audienceId}', { path: { projectId, audienceId }, signal }),
  });
  if (audience.isPending) return <Loading label="Loading the audience…" />;
  if (audience.isError) return <LoadError query={audience} />;
  const data = audience.data;
  return (
    <section aria-labelledby="audience-title">
      <p className="breadcrumb">
        <Link to="..">Audiences</Link> /
      </p>
      <h1 id="audience-title">{data.name}</h1>
      {data.description ? <p>{data.description}</p> : null}
      <dl className="facts">
        <div>
          <dt>Type</dt>
          <dd>{data.type}</dd>
        </div>
        <div>
          <dt>Users</dt>
          <dd data-testid="entries-count">{formatDecimal(data.entries_count)}</dd>
        </div>
        <div>
          <dt>Tier rank</dt>
          <dd>{data.tier_rank ?? 'not a tier'}</dd>
        </div>
        <div>
          <dt>Badge</dt>
          <dd>{data.badge?.name ?? 'none'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(data.created_at)}</dd>
        </div>
      </dl>
      <WritesOnly>
        <BadgeEditor audienceId={audienceId} badge={data.badge} />
      </WritesOnly>
      {data.condition ? (
        <>
          <h2>Condition</h2>
          <ul className="condition-tree">
            {describeCondition(data.condition).map((line, index) => (
              <li key={index} style={{ paddingLeft: `${line.depth * 1.25}rem` }}>
                {line.text}
              </li>
            ))}
          </ul>
          <Evaluation audienceId={audienceId} />
        </>
      ) : (
        <WritesOnly>
          <CsvUpload audienceId={audienceId} />
        </WritesOnly>
      )}
      <Entries audienceId={audienceId} />
      <WritesOnly>
        <AudienceSettings audience={data} />
        <DeleteAudience audienceId={audienceId} name={data.name} />
      </WritesOnly>
    </section>
  );
}

function Entries({ audienceId }: { audienceId: string }) {
  const { projectId, api } = useProject();
  const [params, setParams] = useSearchParams();
  const page = pageFromUrl(params);
  const search = params.get('search') ?? '';
  const [searchText, setSearchText] = useState(search);
  const [removing, setRemoving] = useState<EntryToRemove | null>(null);
  const [removed, setRemoved] = useState('');
  const entries = useQuery({
    queryKey: ['entries', projectId, audienceId, page, search],
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/audiences/{audienceId}/entries', {
        path: { projectId, audienceId },
        query: { page, page_size: PAGE_SIZE, search: search || undefined },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (searchText.trim()) next.set('search', searchText.trim());
    setParams(next);
  };
  return (
    <section aria-labelledby="entries-title">
      <h2 id="entries-title">Users</h2>
      <form role="search" className="inline-fields" onSubmit={submit}>
        <div>
          <label htmlFor="entry-search">Identifier starts with</label>
          <input id="entry-search" type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)} />
        </div>
        <button type="submit">Search</button>
      </form>
      <PagedTable
        query={entries}
        loading="Loading users…"
        empty={search ? `No user’s identifier starts with “${search}”.` : 'No users in this audience yet.'}
        table={{
          label: 'Users table, scrollable',
          caption: 'Users in the audience, newest first',
          columns: ['Identifier', 'Type', 'Kind', 'Source', 'Added', { key: 'actions', label: <span className="visually-hidden">Actions</span> }],
        }}
        row={(entry) => (
          <tr key={`${entry.identifier_type}:${entry.identifier}`}>
            <td className="identifier">{entry.identifier}</td>
            <td>{entry.identifier_type}</td>
            <td>{entry.kind}</td>
            <td>{entry.source}</td>
            <td>{formatDateTime(entry.added_at)}</td>
            <td>
              <button
                type="button"
                onClick={() => {
                  setRemoved('');
                  setRemoving(entry);
                }}
              >
                Remove<span className="visually-hidden"> {entry.identifier}</span>
              </button>
            </td>
          </tr>
        )}
        pagerLabel="User pages"
        onPage={(next) => {
          const nextParams = new URLSearchParams(params);
          nextParams.set('page', String(next));
          setParams(nextParams);
        }}
      />
      <p role="status" aria-live="polite" className={removed ? 'state' : undefined}>
        {removed}
      </p>
      {removing ? (
        <RemoveEntryDialog
          audienceId={audienceId}
          entry={removing}
          onClose={() => setRemoving(null)}
          onRemoved={(sentence) => {
            setRemoving(null);
            setRemoved(sentence);
          }}
        />
      ) : null}
    </section>
  );
}
