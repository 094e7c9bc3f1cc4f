import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { ConflictError, invalidFields } from '../../rules/errors';
import { checkIdentifiers } from '../../rules/identifiers';
import type { Logger } from '../../platform/logger';
import type { TaxRecordRepository } from '../repositories/tax-record.repository';
import type { TaxTransitionRepository } from '../repositories/tax-transition.repository';
import type { TaxSettingsRepository } from '../repositories/tax-settings.repository';
import { type TaxFormInput, validateTaxForm } from './tax-form';
import { maskedView, readableView, type TaxInfoView } from './tax-info-view';
import { effectiveStatus, recordStatusAt, type TaxStatusView } from './tax-status';
import { invalidTransition, taxInfoNotFound } from './tax-subject';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import { CurrentRecordBlocks } from './tax-record';
import type { TinVault } from './tin-vault';
import { w8RuleInForce } from './w8-expiry';

/** Users the batch status lookup answers at once. */
export const MAX_BATCH_USERS = 1_000;

/** The affiliate's side: submit a form, read it back masked, read the effective status. */
export class TaxInfoService {
  constructor(
    private readonly records: TaxRecordRepository,
    private readonly transitions: TaxTransitionRepository,
    private readonly settings: TaxSettingsRepository,
    private readonly vault: TinVault,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Allowed with no record, or when the current one is submitted, revoked or expired: the new
   * form becomes the current record (submitted) and the old one is kept as history. While the
   * current form is approved and valid it is refused: an approved affiliate would otherwise
   * lose the right to claim by resubmitting; an admin revokes first, or the W-8 expires.
   * A project that does not require tax info still accepts forms (its status reads not_required).
   */
  async submit(projectId: string, userInput: UserInput, form: TaxFormInput): Promise<TaxInfoView> {
    const { user } = subject(projectId, userInput);
    const now = this.clock.now();
    const settings = await this.settings.get(projectId);
    const validated = validateTaxForm(form, now, w8RuleInForce(settings.w8ExpiryRule));

    const id = randomUUID();
    const sealedTaxId = validated.taxIdNumber === null ? null : this.vault.sealRecordTin(validated.taxIdNumber, { projectId, user, recordId: id });
    try {
      const { record, replaced } = await this.transitions.submit({ id, projectId, user, fields: validated.fields, sealedTaxId, now });
      this.logger.info(
        { project_id: projectId, tax_record_id: record.id, form_type: record.formType, replaced_status: replaced, key_id: sealedTaxId?.keyId },
        'tax info submitted',
      );
      return maskedView(record, this.vault, now);
    } catch (error) {
      if (!(error instanceof CurrentRecordBlocks)) throw error;
      const current = await this.records.findCurrent(projectId, user);
      if (current && recordStatusAt(current, this.clock.now()) === 'approved') {
        throw invalidTransition(
          'tax info is approved and cannot be replaced by a new submission; it can be resubmitted once an admin revokes it or it expires',
        );
      }
      throw new ConflictError('TAX_INFO_CHANGED', 'the tax info changed while this submission was being stored; send it again');
    }
  }

  async getCurrent(projectId: string, userInput: UserInput): Promise<TaxInfoView> {
    const { user } = subject(projectId, userInput);
    const record = await this.records.findCurrent(projectId, user);
    if (!record) throw taxInfoNotFound();
    return readableView(record, this.vault, this.clock.now(), this.logger);
  }

  async status(projectId: string, userInput: UserInput): Promise<TaxStatusView> {
    const { user } = subject(projectId, userInput);
    const [settings, record] = await Promise.all([this.settings.get(projectId), this.records.findCurrent(projectId, user)]);
    return effectiveStatus(user, settings.requireTaxInfo, record, this.clock.now());
  }

  /** One status per requested user, in the order asked (duplicates answered each time). */
  async statuses(projectId: string, usersInput: UserInput[]): Promise<TaxStatusView[]> {
    requireProjectId(projectId);
    if (usersInput.length > MAX_BATCH_USERS) {
      throw invalidFields([{ field: 'users', reason: `at most ${MAX_BATCH_USERS} users per request` }]);
    }
    const checked = checkIdentifiers(usersInput, 'users');
    if (!checked.users) throw invalidFields(checked.violations);
    const { users } = checked;
    if (users.length === 0) return [];
    const { requireTaxInfo, records } = await this.records.currentStatusesOf(projectId, users);
    const now = this.clock.now();
    return users.map((user, index) => effectiveStatus(user, requireTaxInfo, records[index], now));
  }
}
