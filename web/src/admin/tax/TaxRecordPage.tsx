import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { Empty } from '../../ui/states';
import { RecordFacts } from './RecordFacts';
import { ReviewActions } from './ReviewActions';
import { type RecordOwner, type ReviewedStatus, TAX_PATHS, type TaxSubmission } from './tax-records';
import { UnmaskedView } from './UnmaskedView';

/**
 * The record the queue row carried (router state, which the browser keeps across a reload), if it
 * is this owner's. The API has no masked read of a single record, so a page opened from a typed or
 * bookmarked address has none.
 */
function carriedRecord(state: unknown, owner: RecordOwner): TaxSubmission | null {
  const record = (state as { record?: TaxSubmission } | null)?.record;
  if (!record || typeof record !== 'object') return null;
  return record.user_identifier === owner.identifier && record.user_identifier_type === owner.identifierType ? record : null;
}

/** A review changed the record: its new status and dates, as approve or revoke answered them. */
function afterReview(record: TaxSubmission, action: 'approve' | 'revoke', status: ReviewedStatus): TaxSubmission {
  return {
    ...record,
    status: action === 'approve' ? 'approved' : 'revoked',
    approved_at: status.approved_at,
    expires_at: status.expires_at,
    revoked_reason: status.revoked_reason,
  };
}

/**
 * One affiliate's tax record: the form as listed (tax id masked), approve and revoke, and the
 * audited full read, which only runs when asked for.
 */
export function TaxRecordPage() {
  const { identifier = '', identifierType = 'evm_address' } = useParams();
  const owner: RecordOwner = { identifier, identifierType };
  const location = useLocation();
  const navigate = useNavigate();
  const record = carriedRecord(location.state, owner);
  const reviewed = (action: 'approve' | 'revoke', status: ReviewedStatus) => {
    if (record) void navigate(location.pathname, { replace: true, state: { record: afterReview(record, action, status) } });
  };

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
        {record ? (
          <>
            <RecordFacts record={record} taxIdLabel="Tax id (masked)" />
            <ReviewActions owner={owner} status={record.status} name={record.legal_name} onReviewed={reviewed} />
          </>
        ) : (
          <Empty>
            Open this record from the <Link to={TAX_PATHS.queue}>tax forms list</Link> to see the form and review it.
          </Empty>
        )}
      </section>
      {/* A review changes the record: a full read shown before it would be stale, so it is dropped (a new mount). */}
      <UnmaskedView key={record?.status ?? 'none'} owner={owner} />
    </article>
  );
}
