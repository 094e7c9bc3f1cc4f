import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { formatBasisPoints, formatCount, formatDateTime, formatDecimal, formatUsd } from '../../ui/format';
import { LoadError, Loading, Notice } from '../../ui/states';
import { useProject } from '../session';
import { BindSubAffiliates } from './BindSubAffiliates';
import { Amounts } from './figures';
import { affiliatePath } from '../affiliates/AffiliateLink';
import { type Master, masterKey, refreshMaster } from './queries';
import { SpreadForm } from './SpreadForm';
import { SubAffiliates } from './SubAffiliates';

/** One master affiliate: its figures (the sums over its sub-affiliates), its spread, its sub-affiliates, and its removal. */
export function MasterDetail() {
  const { projectId, api } = useProject();
  const agencyId = useParams().agencyId ?? '';
  // A designation that unbound the new master from its own master comes here saying so.
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const master = useQuery({
    queryKey: masterKey(projectId, agencyId),
    queryFn: ({ signal }) => api('get', '/api/v1/projects/{projectId}/agencies/{agencyId}', { path: { projectId, agencyId }, signal }),
  });
  if (master.isPending) return <Loading label="Loading the master affiliate…" />;
  if (master.isError) {
    return (
      <>
        <p className="breadcrumb">
          <Link to="..">Master affiliates</Link> /
        </p>
        <LoadError query={master} />
      </>
    );
  }
  const data = master.data;
  const title = data.name || data.identifier;
  return (
    <article aria-labelledby="master-title">
      <p className="breadcrumb">
        <Link to="..">Master affiliates</Link> /
      </p>
      <h1 id="master-title">{title}</h1>
      <Notice notice={notice} />
      <p className="identifier">
        {data.identifier} <span className="subtle">({data.identifier_type})</span> ·{' '}
        <Link to={affiliatePath(data.identifier_type, data.identifier)}>Its affiliate page</Link>
      </p>
      <Figures master={data} />
      <div className="columns">
        <SpreadForm master={data} />
        <BindSubAffiliates agencyId={data.id} />
      </div>
      <SubAffiliates agencyId={data.id} />
      <RemoveMaster master={data} />
    </article>
  );
}

function Figures({ master }: { master: Master }) {
  return (
    <section aria-labelledby="master-figures-title">
      <h2 id="master-figures-title">Figures</h2>
      <p className="help">What its sub-affiliates brought while bound to it: the sums over the sub-affiliates below, former ones included.</p>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>{master.status}</dd>
        </div>
        <div>
          <dt>Spread</dt>
          <dd data-testid="master-spread">
            {formatBasisPoints(master.spread_bps)} ({master.spread_bps} bps)
          </dd>
        </div>
        <div>
          <dt>Sub-affiliates bound now</dt>
          <dd data-testid="master-sub-affiliates">{formatDecimal(master.sub_affiliates_count)}</dd>
        </div>
        <div>
          <dt>Referred volume</dt>
          <dd data-testid="master-referred-volume">{formatUsd(master.referred_volume_usd)}</dd>
        </div>
        <div>
          <dt>Earnings</dt>
          <dd data-testid="master-earnings">
            <Amounts amounts={master.earnings} label="The master’s earnings per currency" />
          </dd>
        </div>
        <div>
          <dt>Master since</dt>
          <dd>{formatDateTime(master.designated_at)}</dd>
        </div>
      </dl>
    </section>
  );
}

function RemoveMaster({ master }: { master: Master }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('delete', '/api/v1/projects/{projectId}/agencies/{agencyId}', { path: { projectId, agencyId: master.id } }),
    onSuccess: async (removed) => {
      await refreshMaster(queryClient, projectId, master.id);
      const released = removed.released_sub_affiliates;
      await navigate('..', {
        state: {
          notice: `${master.name || master.identifier} is no longer a master affiliate; ${released} sub-affiliate${released === 1 ? '' : 's'} became regular affiliates.`,
        },
      });
    },
  });
  return (
    <section className="panel" aria-labelledby="remove-master-title">
      <h2 id="remove-master-title">Master status</h2>
      <p className="help">Its sub-affiliates become regular affiliates. Past attributions and payouts stay as they were.</p>
      <button type="button" className="danger-outline" onClick={() => setConfirming(true)}>
        Remove master designation
      </button>
      <ConfirmMutationDialog
        open={confirming}
        title={`Remove master status from ${master.name || master.identifier}?`}
        confirmLabel="Yes, remove"
        mutation={remove}
        onClose={() => setConfirming(false)}
      >
        <p>
          Its {formatCount(master.sub_affiliates_count, 'sub-affiliate')} become regular affiliates, and conversions from now on pay it no spread.
          Past attributions and payouts stay as they were.
        </p>
      </ConfirmMutationDialog>
    </section>
  );
}
