import { randomInt } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import { INVITE_CODE_RULES } from '../../rules/contract-limits';
import { ConflictError, type FieldViolation, invalidFields, NotFoundError } from '../../rules/errors';
import type { PagedRecords } from '../../platform/db/paged-list';
import type { Page } from '../../rules/pagination';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import type { InviteCodeRecord, InviteCodeRepository } from '../repositories/invite-code.repository';
import { affiliateNotFound, checkCode } from './affiliate-fields';

/** One generated code: INVITE_CODE_RULES.length characters of its alphabet, from the system's CSPRNG. */
export function drawInviteCode(): string {
  const { alphabet, length } = INVITE_CODE_RULES;
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** max_uses: a whole number from 0 (disabled) to INVITE_CODE_RULES.maxUses, or null (unlimited). */
function checkMaxUses(maxUses: number | null, violations: FieldViolation[]): void {
  if (maxUses !== null && (!Number.isInteger(maxUses) || maxUses < 0 || maxUses > INVITE_CODE_RULES.maxUses)) {
    violations.push({ field: 'max_uses', reason: `must be a whole number from 0 to ${INVITE_CODE_RULES.maxUses}, or null for unlimited` });
  }
}

/**
 * Invite codes (docs/affiliates.md#invite-codes): an affiliate's generated codes, each with the uses it
 * allows. Using one is a referral (ReferralService.refer), which takes a use in its own transaction.
 */
export class InviteCodeService {
  constructor(
    private readonly codes: InviteCodeRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly draw: () => string = drawInviteCode,
  ) {}

  async generate(projectIdInput: string, userInput: UserInput, quantity: number, maxUses: number | null): Promise<string[]> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const violations: FieldViolation[] = [];
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > INVITE_CODE_RULES.maxQuantity) {
      violations.push({ field: 'quantity', reason: `must be a whole number from 1 to ${INVITE_CODE_RULES.maxQuantity}` });
    }
    checkMaxUses(maxUses, violations);
    if (violations.length > 0) throw invalidFields(violations);
    const outcome = await this.codes.generate(
      projectId,
      user,
      { quantity, maxUses, maxPerAffiliate: INVITE_CODE_RULES.maxPerAffiliate },
      this.draw,
      this.clock.now(),
    );
    if (outcome.kind === 'no_affiliate') throw affiliateNotFound();
    if (outcome.kind === 'limit_reached') {
      throw new ConflictError('CODE_LIMIT_REACHED', `an affiliate may hold at most ${INVITE_CODE_RULES.maxPerAffiliate} invite codes`);
    }
    this.logger.info({ project_id: projectId, quantity }, 'invite codes generated');
    return outcome.codes;
  }

  async list(projectIdInput: string, userInput: UserInput, page: Page): Promise<PagedRecords<InviteCodeRecord>> {
    const { projectId, user } = subject(projectIdInput, userInput);
    return this.codes.list(projectId, user, page);
  }

  async setMaxUses(projectIdInput: string, code: string, maxUses: number | null): Promise<{ code: string; maxUses: number | null; uses: number }> {
    const projectId = requireProjectId(projectIdInput);
    const violations: FieldViolation[] = [];
    checkMaxUses(maxUses, violations);
    if (violations.length > 0) throw invalidFields(violations);
    const updated = checkCode(code).violations.length === 0 ? await this.codes.setMaxUses(projectId, code, maxUses, this.clock.now()) : undefined;
    if (!updated) throw inviteCodeNotFound(code);
    return updated;
  }

  /** Whether the code would refer a user now (an invalid code refers nobody: no need to ask). */
  async usable(projectIdInput: string, code: string): Promise<boolean> {
    const projectId = requireProjectId(projectIdInput);
    return checkCode(code).violations.length === 0 && this.codes.usable(projectId, code);
  }
}

function inviteCodeNotFound(code: string) {
  return new NotFoundError('INVITE_CODE_NOT_FOUND', `this project has no invite code ${code}`);
}
