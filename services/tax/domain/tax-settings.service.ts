import type { Clock } from '../../platform/clock';
import { type FieldViolation, invalidFields } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import type { Address } from './address';
import type { TaxSettingsChanges, TaxSettingsRecord, TaxSettingsRepository } from '../repositories/tax-settings.repository';
import { type AddressInput, checkAddress, checkEmail, checkOneOf, checkOptionalText, LIMITS } from './form-fields';
import { requireProjectId } from '../../rules/subject';
import { checkEin, maskTin } from './tin-rules';
import type { TinVault } from './tin-vault';
import { W8_EXPIRY_RULES, type W8ExpiryRule } from './vocabulary';
import { w8RuleInForce } from './w8-expiry';

/** The fields an update may name; a named company field left unset is cleared, a named w8_expiry_rule left unset is the default again. */
export const UPDATABLE_SETTINGS_FIELDS = [
  'require_tax_info',
  'company_legal_name',
  'company_address',
  'company_tax_id',
  'company_contact_email',
  'w8_expiry_rule',
] as const;

export interface TaxSettingsInput {
  requireTaxInfo?: boolean | undefined;
  companyLegalName?: string | undefined;
  companyAddress?: AddressInput | undefined;
  companyTaxId?: string | undefined;
  companyContactEmail?: string | undefined;
  w8ExpiryRule?: string | undefined;
}

export interface TaxSettingsView {
  requireTaxInfo: boolean;
  companyLegalName: string | null;
  companyAddress: Address | null;
  /** The company's EIN is a tax id too: sealed at rest and shown masked. */
  companyTaxIdMasked: string | null;
  companyContactEmail: string | null;
  /** The rule in force: the project's choice, or the default. */
  w8ExpiryRule: W8ExpiryRule;
  /** Whether the project chose it (false: it follows the default). */
  w8ExpiryRuleChosen: boolean;
  updatedAt: Date | null;
}

/**
 * Per-project tax settings. Turning require_tax_info off or on changes no record: the effective
 * status is computed from it on every read. A new expiry rule applies to approvals from then on;
 * forms already approved keep the expires_at they were given. A project that never chose an expiry
 * rule follows the default (three_years_from_approval); naming one pins it, even the default's
 * value, and naming none (null) returns to the default.
 */
export class TaxSettingsService {
  constructor(
    private readonly settings: TaxSettingsRepository,
    private readonly vault: TinVault,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async get(projectId: string): Promise<TaxSettingsView> {
    return this.view(await this.settings.get(requireProjectId(projectId)));
  }

  async update(projectId: string, mask: string[], input: TaxSettingsInput): Promise<TaxSettingsView> {
    requireProjectId(projectId);
    const changes = this.validate(projectId, mask, input);
    if (Object.keys(changes).length === 0) return this.get(projectId);
    const updated = await this.settings.update(projectId, changes, this.clock.now());
    this.logger.info({ project_id: projectId, fields: [...new Set(mask)] }, 'tax settings updated');
    return this.view(updated);
  }

  private validate(projectId: string, mask: string[], input: TaxSettingsInput): TaxSettingsChanges {
    const violations: FieldViolation[] = mask
      .filter((path) => !(UPDATABLE_SETTINGS_FIELDS as readonly string[]).includes(path))
      .map((field) => ({ field, reason: 'is not a tax settings field' }));
    const changes: TaxSettingsChanges = {};
    if (mask.includes('require_tax_info')) {
      if (input.requireTaxInfo === undefined) violations.push({ field: 'require_tax_info', reason: 'must be true or false' });
      else changes.requireTaxInfo = input.requireTaxInfo;
    }
    if (mask.includes('w8_expiry_rule')) {
      if (input.w8ExpiryRule === undefined) changes.w8ExpiryRule = null;
      else {
        const rule = checkOneOf(input.w8ExpiryRule, 'w8_expiry_rule', W8_EXPIRY_RULES);
        violations.push(...rule.violations);
        if (rule.value !== null) changes.w8ExpiryRule = rule.value;
      }
    }
    if (mask.includes('company_legal_name')) {
      const name = checkOptionalText(input.companyLegalName, 'company_legal_name', LIMITS.nameLength);
      violations.push(...name.violations);
      changes.companyLegalName = name.value;
    }
    if (mask.includes('company_address')) {
      if (input.companyAddress === undefined) changes.companyAddress = null;
      else {
        const address = checkAddress(input.companyAddress, 'company_address');
        violations.push(...address.violations);
        changes.companyAddress = address.value;
      }
    }
    if (mask.includes('company_tax_id')) {
      if (input.companyTaxId === undefined || input.companyTaxId.trim() === '') changes.companyTaxId = null;
      else {
        const ein = checkEin(input.companyTaxId, 'company_tax_id');
        violations.push(...ein.violations);
        if (ein.value !== null) changes.companyTaxId = this.vault.sealCompanyTaxId(ein.value, projectId);
      }
    }
    if (mask.includes('company_contact_email')) {
      if (input.companyContactEmail === undefined || input.companyContactEmail.trim() === '') changes.companyContactEmail = null;
      else {
        const email = checkEmail(input.companyContactEmail, 'company_contact_email');
        violations.push(...email.violations);
        changes.companyContactEmail = email.value;
      }
    }
    if (violations.length > 0) throw invalidFields(violations);
    return changes;
  }

  private view(record: TaxSettingsRecord): TaxSettingsView {
    return {
      requireTaxInfo: record.requireTaxInfo,
      companyLegalName: record.companyLegalName,
      companyAddress: record.companyAddress,
      companyTaxIdMasked: record.companyTaxId ? maskTin(this.vault.openCompanyTaxId(record.companyTaxId, record.projectId)) : null,
      companyContactEmail: record.companyContactEmail,
      w8ExpiryRule: w8RuleInForce(record.w8ExpiryRule),
      w8ExpiryRuleChosen: record.w8ExpiryRule !== null,
      updatedAt: record.updatedAt,
    };
  }
}
