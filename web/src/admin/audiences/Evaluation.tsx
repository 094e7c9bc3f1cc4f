import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiError } from '../../api/client';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage } from '../../ui/states';
import { useProject } from '../session';

export const evaluationKey = (projectId: string, audienceId: string) => ['evaluation', projectId, audienceId];
/** How often an evaluation still running is read again. */
const RUNNING_POLL_MS = 1_000;

/**
 * A dynamic audience's latest full evaluation, in a sentence, followed while it runs; "Evaluate
 * again" matches every user against the condition anew (static entries are never touched).
 */
export function Evaluation({ audienceId }: { audienceId: string }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const key = evaluationKey(projectId, audienceId);
  const evaluation = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      api('get', '/api/v1/projects/{projectId}/audiences/{audienceId}/evaluation', { path: { projectId, audienceId }, signal }).catch(
        (error: unknown) => {
          // Never evaluated yet: nothing to say, not a failure.
          if (error instanceof ApiError && error.status === 404) return null;
          throw error;
        },
      ),
    refetchInterval: (query) =>
      query.state.data && (query.state.data.status === 'queued' || query.state.data.status === 'active') ? RUNNING_POLL_MS : false,
  });
  const evaluate = useMutation({
    mutationFn: () => api('post', '/api/v1/projects/{projectId}/audiences/{audienceId}/evaluate', { path: { projectId, audienceId } }),
    onSuccess: async (started) => {
      queryClient.setQueryData(key, started);
      await queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] });
    },
  });
  const latest = evaluation.data;
  const running = latest?.status === 'queued' || latest?.status === 'active';
  const finishedAt = latest?.finished_at;
  useEffect(() => {
    // A finished evaluation changed who is in the audience: its count and users are read again.
    if (!finishedAt) return;
    void queryClient.invalidateQueries({ queryKey: ['audience', projectId, audienceId] });
    void queryClient.invalidateQueries({ queryKey: ['entries', projectId, audienceId] });
  }, [finishedAt, queryClient, projectId, audienceId]);
  return (
    <section aria-labelledby="evaluation-title">
      <h2 id="evaluation-title">Evaluation</h2>
      <p role="status" aria-live="polite" data-testid="evaluation-state">
        {latest === undefined
          ? ''
          : latest === null
            ? 'Not evaluated yet.'
            : latest.status === 'completed'
              ? `Evaluated ${formatDateTime(latest.finished_at)}: ${latest.matched ?? 0} users match, ${latest.added ?? 0} added, ${latest.removed ?? 0} removed.`
              : latest.status === 'failed'
                ? `The evaluation started ${formatDateTime(latest.started_at)} failed; evaluate again.`
                : latest.status === 'active'
                  ? 'Evaluating every user against the condition…'
                  : 'The evaluation is queued…'}
      </p>
      {evaluation.isError ? <ErrorMessage error={evaluation.error} onRetry={() => void evaluation.refetch()} /> : null}
      {evaluate.isError ? <ErrorMessage error={evaluate.error} title="Not evaluated" /> : null}
      <button type="button" onClick={() => evaluate.mutate()} disabled={evaluate.isPending || running}>
        {evaluate.isPending || running ? 'Evaluating…' : 'Evaluate again'}
      </button>
    </section>
  );
}
