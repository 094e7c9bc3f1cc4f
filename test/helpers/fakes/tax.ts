import type { EffectiveTaxStatus, TaxStatusSource } from '../../../services/claim/domain/tax-gate';
import type { Clock } from '../../../services/platform/clock';
import type { UserIdentifier } from '../../../services/rules/identifiers';
import { userKey } from './timeline';

type User = { identifier: string; identifierType: string };
type Form = { status: 'submitted' | 'revoked' } | { status: 'approved'; expiresAt: Date | null };

/**
 * The tax service as the claim domain's tax gate asks it (TaxStatusSource), in memory: which
 * projects require tax information and where each user's form stands. A test sets the outcome;
 * the tax rules that lead there (validation, review, when a W-8 expires) are tested in
 * test/medium/tax. An approved form reads expired from its expires_at on, by the test clock.
 */
export class FakeTaxStatuses implements TaxStatusSource {
  private readonly requiring = new Set<string>();
  private readonly forms = new Map<string, Form>();

  constructor(private readonly clock: Clock) {}

  requireTaxInfo(projectId: string): void {
    this.requiring.add(projectId);
  }

  submit(projectId: string, user: User): void {
    this.forms.set(userKey(projectId, user), { status: 'submitted' });
  }

  /** Approved, until `expiresAt` (a W-8's) or for good (null, a W-9's). */
  approve(projectId: string, user: User, expiresAt: Date | null): void {
    this.forms.set(userKey(projectId, user), { status: 'approved', expiresAt });
  }

  revoke(projectId: string, user: User): void {
    this.forms.set(userKey(projectId, user), { status: 'revoked' });
  }

  async statuses(projectId: string, users: readonly UserIdentifier[]): Promise<EffectiveTaxStatus[]> {
    return users.map((user) => this.statusOf(projectId, user));
  }

  private statusOf(projectId: string, user: User): EffectiveTaxStatus {
    if (!this.requiring.has(projectId)) return 'not_required';
    const form = this.forms.get(userKey(projectId, user));
    if (!form) return 'not_submitted';
    if (form.status !== 'approved') return form.status;
    return form.expiresAt !== null && form.expiresAt <= this.clock.now() ? 'expired' : 'approved';
  }
}
