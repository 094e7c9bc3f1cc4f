import { useQuery } from '@tanstack/react-query';
import type { ApiResult } from '../../api/client';
import { usePortal } from '../session';

export type TaxStatus = ApiResult<'/api/v1/projects/{projectId}/affiliate-portal/tax-status', 'get'>;

export function useTaxStatus() {
  const { projectId, address, api } = usePortal();
  return useQuery({
    queryKey: ['portal', projectId, address, 'tax-status'],
    // A reviewer approves or revokes elsewhere: read it again whenever the page opens.
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/projects/{projectId}/affiliate-portal/tax-status', { path: { projectId } }),
  });
}

export const FORM_NAMES = { w9: 'W-9', w8ben: 'W-8BEN', w8bene: 'W-8BEN-E' } as const;

/** What the status means and what to do next, in plain words. */
export function nextStep(status: TaxStatus): { summary: string; next: string; maySubmit: boolean } {
  const form = status.form_type ? FORM_NAMES[status.form_type] : 'tax form';
  switch (status.status) {
    case 'not_required':
      return { summary: 'This program does not need a tax form from you.', next: 'Nothing to do.', maySubmit: false };
    case 'not_submitted':
      return {
        summary: 'This program needs your tax form before it can pay your affiliate earnings.',
        next: 'Fill in the form below.',
        maySubmit: true,
      };
    case 'submitted':
      return { summary: `Your ${form} is being reviewed.`, next: 'Wait for the review; you may send a corrected form meanwhile.', maySubmit: true };
    case 'approved':
      return {
        summary: `Your ${form} is approved.`,
        next: status.expires_at ? `Nothing to do until it expires on ${status.expires_at.slice(0, 10)}.` : 'Nothing to do.',
        maySubmit: false,
      };
    case 'revoked':
      return {
        summary: `Your ${form} was revoked${status.revoked_reason ? `: ${status.revoked_reason}` : '.'}`,
        next: 'Send a new form below.',
        maySubmit: true,
      };
    case 'expired':
      return { summary: `Your ${form} has expired.`, next: 'Send a renewed form below.', maySubmit: true };
  }
}
