import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { RecordFacts } from './RecordFacts';
import { ReviewActions } from './ReviewActions';
import { type RecordOwner, TAX_PATHS, taxKeys } from './tax-records';
import { UnmaskedView } from './UnmaskedView';

/**
 * One affiliate's tax record: the form as the review list answers it for this user (tax id
 * masked, no audit entry), approve and revoke, and the audited full read, which only runs when
 * asked for. The record is read by its owner, so a typed or bookmarked address opens it too.
 */
export function TaxRecordPage() {
  const { identifier = '', identifierType = 'evm_address' } = useParams();
  const owner: RecordOwner = { identifier, identifierType };
  const { projectId, api } = useProject();
  const current = useQuery({
    // Under the section's list key: a review refreshes this record with the queue.
    queryKey: [...taxKeys.submissions(projectId), 'owner', identifierType, identifier],
    queryFn: () =>
      api('get', '/api/v1/projects/{projectId}/tax-submissions', {
        path: { projectId },
        query: { user_identifier: identifier, user_identifier_type: identifierType, page_size: 1 },
      }),
  });
  const record = current.data?.results[0] ?? null;

  return (
    <article aria-labelledby="tax-record-title">
      <p className="breadcrumb">
        <Link to={TAX_PATHS.queue}>Tax forms</Link> /
      </p>
      <h1 id="tax-record-title">{record ? record.legal_name : 'Tax record'}</h1>
      <p className="identifier">
        {identifier} <span className="subtle">({identifierType})</span>
      </p>
      <section aria-labelledby="masked-title">
        <h2 id="masked-title">Form (tax id masked)</h2>
        {current.isPending ? <Loading /> : null}
        {current.isError ? <LoadError query={current} /> : null}
        {current.data && !record ? <Empty>This user has not submitted a tax form.</Empty> : null}
        {record ? (
          <>
            <RecordFacts record={record} taxIdLabel="Tax id (masked)" />
            <ReviewActions owner={owner} status={record.status} name={record.legal_name} />
          </>
        ) : null}
      </section>
      {/* A review changes the record: a full read shown before it would be stale, so it is dropped (a new mount). */}
      <UnmaskedView key={record?.status ?? 'none'} owner={owner} />
    </article>
  );
}
