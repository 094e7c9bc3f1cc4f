import type { Clock } from '../../platform/clock';
import type { Page } from '../../rules/pagination';
import { ConflictError, invalidFields } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import type { AuditLogRepository } from '../repositories/audit-log.repository';
import type { TaxRecordRepository } from '../repositories/tax-record.repository';
import type { TaxTransitionRepository } from '../repositories/tax-transition.repository';
import type { TaxSettingsRepository } from '../repositories/tax-settings.repository';
import { checkText, LIMITS } from './form-fields';
import { maskedView, readableView, type TaxInfoView, unmaskedTin, warnUnreadable } from './tax-info-view';
import { effectiveStatus, recordStatusAt, type TaxStatusView } from './tax-status';
import { invalidTransition, taxInfoNotFound } from './tax-subject';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import type { Actor } from './tax-record';
import type { TinVault } from './tin-vault';
import type { RecordStatus } from './vocabulary';
import { expiresAtFor, w8RuleInForce } from './w8-expiry';

export const UNMASKED_READ_ACTION = 'tax_info.unmasked_read';

export interface UnmaskedTaxInfo {
  status: TaxStatusView;
  record: TaxInfoView | null;
  taxIdNumber: string | null;
}

function adminActor(apiKeyId: string): Actor & { id: string } {
  return { type: 'admin', id: apiKeyId };
}

/**
 * The admin's side: the review queue, approve and revoke (§3.1), and the one unmasked read,
 * which is written to the audit log before the value is opened.
 */
export class TaxReviewService {
  constructor(
    private readonly records: TaxRecordRepository,
    private readonly transitions: TaxTransitionRepository,
    private readonly settings: TaxSettingsRepository,
    private readonly auditLog: AuditLogRepository,
    private readonly vault: TinVault,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async list(
    projectId: string,
    status: RecordStatus | undefined,
    page: Page,
    userInput?: UserInput,
  ): Promise<{ records: TaxInfoView[]; total: number }> {
    requireProjectId(projectId);
    const user = userInput ? subject(projectId, userInput).user : undefined;
    const now = this.clock.now();
    const { records, total } = await this.records.list(projectId, { status, user }, page, now);
    // One record that does not decrypt shows as unreadable; it never fails the page.
    const views = records.map((record) => {
      const view = maskedView(record, this.vault, now);
      if (view.unreadable) warnUnreadable(this.logger, record);
      return view;
    });
    return { records: views, total };
  }

  /** submitted -> approved; a W-8 gets its expires_at from the project's expiry rule now (by default 3 years after this approval). */
  async approve(projectId: string, userInput: UserInput, actorKeyId: string): Promise<TaxStatusView> {
    const { user } = subject(projectId, userInput);
    const actor = adminActor(actorKeyId);
    const [record, settings] = await Promise.all([this.records.findCurrent(projectId, user), this.settings.get(projectId)]);
    if (!record) throw taxInfoNotFound();
    const now = this.clock.now();
    const current = recordStatusAt(record, now);
    if (current !== 'submitted') throw invalidTransition(`only submitted tax info can be approved; this tax info is ${current}`);
    const expiresAt = expiresAtFor(record.formType, { signatureDate: record.signatureDate, approvedAt: now }, w8RuleInForce(settings.w8ExpiryRule));
    if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
      throw new ConflictError(
        'TAX_FORM_EXPIRED',
        `this ${record.formType} form signed on ${record.signatureDate} expired at ${expiresAt.toISOString()}; the affiliate must submit a new form`,
      );
    }
    const approved = await this.transitions.approve(record.id, expiresAt, actor, now);
    if (!approved) return this.refuseChanged(projectId, userInput, 'approved');
    this.logger.info({ project_id: projectId, tax_record_id: approved.id, actor_api_key_id: actor.id }, 'tax info approved');
    return effectiveStatus(user, true, approved, now);
  }

  /** submitted or approved -> revoked, with the reason the affiliate will see. */
  async revoke(projectId: string, userInput: UserInput, actorKeyId: string, reasonInput: string): Promise<TaxStatusView> {
    const { user } = subject(projectId, userInput);
    const actor = adminActor(actorKeyId);
    const reason = checkText(reasonInput, 'reason', LIMITS.reasonLength);
    if (reason.violations.length > 0) throw invalidFields(reason.violations);
    const now = this.clock.now();
    const revoked = await this.transitions.revoke(projectId, user, reason.value, actor, now);
    if (!revoked) return this.refuseChanged(projectId, userInput, 'revoked');
    this.logger.info(
      { project_id: projectId, tax_record_id: revoked.record.id, from_status: revoked.previousStatus, actor_api_key_id: actor.id },
      'tax info revoked',
    );
    return effectiveStatus(user, true, revoked.record, now);
  }

  /**
   * The full record with the tax id in clear. The audit entry (who, when, whose record; never
   * the value) is committed before the value is opened: no unaudited read can happen.
   */
  async readUnmasked(projectId: string, userInput: UserInput, actorKeyId: string, requestId: string | null): Promise<UnmaskedTaxInfo> {
    const { user } = subject(projectId, userInput);
    const actor = adminActor(actorKeyId);
    const [record, settings] = await Promise.all([this.records.findCurrent(projectId, user), this.settings.get(projectId)]);
    const now = this.clock.now();
    const status = effectiveStatus(user, settings.requireTaxInfo, record, now);
    if (!record) return { status, record: null, taxIdNumber: null };

    await this.auditLog.insert({
      projectId,
      action: UNMASKED_READ_ACTION,
      actorApiKeyId: actor.id,
      user,
      taxRecordId: record.id,
      requestId,
      now,
    });
    this.logger.info({ project_id: projectId, tax_record_id: record.id, actor_api_key_id: actor.id }, 'unmasked tax info read (audited)');
    return { status, record: readableView(record, this.vault, now, this.logger), taxIdNumber: unmaskedTin(record, this.vault) };
  }

  /** The conditional update found the record changed under it: say what it is now. */
  private async refuseChanged(projectId: string, userInput: UserInput, target: 'approved' | 'revoked'): Promise<never> {
    const { user } = subject(projectId, userInput);
    const record = await this.records.findCurrent(projectId, user);
    if (!record) throw taxInfoNotFound();
    const current = recordStatusAt(record, this.clock.now());
    const allowed = target === 'approved' ? 'submitted' : 'submitted or approved';
    throw invalidTransition(`only ${allowed} tax info can be ${target}; this tax info is ${current}`);
  }
}
