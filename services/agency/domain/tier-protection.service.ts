import type { Clock } from '../../platform/clock';
import { TIER_PROTECTION_DAYS } from '../../rules/contract-limits';
import { InvalidArgumentError, invalidFields, NotFoundError } from '../../rules/errors';
import { isUuid } from '../../rules/ids';
import type { Logger } from '../../platform/logger';
import type { TierProtectionRepository } from '../repositories/tier-protection.repository';
import { affiliateNotFound } from './affiliate-fields';
import { subject, type UserInput } from '../../rules/subject';
import type { AudienceDirectory } from './audience-directory';

export const DAY_MS = 86_400_000;

export interface TierProtectionInput {
  tierId: string;
  /** Exactly one of protectionDays and expiresAt. */
  protectionDays?: number | undefined;
  expiresAt?: Date | undefined;
}

/** Whole days left until `expiresAt`, rounded up: 1 for any part of a day. */
export function daysRemaining(expiresAt: Date, now: Date): number {
  return Math.max(0, Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS));
}

function tierNotFound(): NotFoundError {
  return new NotFoundError('TIER_NOT_FOUND', 'no audience segment of this project has this id');
}

/**
 * Tier protection (specification §2.9, §8.2): an admin keeps an affiliate at a tier for 1 to 365
 * days whatever its metrics do. While it lasts the active tier is the higher of the protected and
 * the current tier (affiliate-details.service.ts); setting a new one ends the one before.
 */
export class TierProtectionService {
  constructor(
    private readonly protections: TierProtectionRepository,
    private readonly audience: AudienceDirectory,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async set(projectIdInput: string, userInput: UserInput, input: TierProtectionInput, actorId: string | null): Promise<void> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const now = this.clock.now();
    const expiresAt = this.expiry(input, now);
    if (!isUuid(input.tierId)) throw tierNotFound();
    const segment = await this.audience.segment(projectId, input.tierId);
    if (!segment) throw tierNotFound();
    if (segment.tierRank === null) {
      throw new InvalidArgumentError('NOT_A_TIER', 'this audience segment has no tier rank; set tier_rank on it to make it a tier', [
        { field: 'tier_id', reason: 'names a segment that is not a tier' },
      ]);
    }
    const outcome = await this.protections.set(projectId, user, segment.id, expiresAt, actorId, now);
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    this.logger.info(
      { project_id: projectId, tier_id: segment.id, expires_at: expiresAt.toISOString(), actor_api_key_id: actorId },
      'tier protection set',
    );
  }

  async end(projectIdInput: string, userInput: UserInput, actorId: string | null): Promise<void> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const outcome = await this.protections.end(projectId, user, actorId, this.clock.now());
    if (outcome === 'no_affiliate') throw affiliateNotFound();
    if (outcome === 'none_in_force') throw new NotFoundError('TIER_PROTECTION_NOT_FOUND', 'this affiliate has no tier protection in force');
    this.logger.info({ project_id: projectId, actor_api_key_id: actorId }, 'tier protection ended');
  }

  /** From protection_days (whole days from now) or expires_at (in the future, at most 365 days ahead). */
  private expiry(input: TierProtectionInput, now: Date): Date {
    const { min, max } = TIER_PROTECTION_DAYS;
    const hasDays = input.protectionDays !== undefined;
    const hasExpiry = input.expiresAt !== undefined;
    if (hasDays === hasExpiry) {
      throw invalidFields([{ field: 'protection_days', reason: 'give exactly one of protection_days and expires_at' }]);
    }
    if (hasDays) {
      const days = input.protectionDays!;
      if (!Number.isInteger(days) || days < min || days > max) {
        throw invalidFields([{ field: 'protection_days', reason: `must be a whole number of days from ${min} to ${max}` }]);
      }
      return new Date(now.getTime() + days * DAY_MS);
    }
    const expiresAt = input.expiresAt!;
    if (Number.isNaN(expiresAt.getTime()) || expiresAt <= now) throw invalidFields([{ field: 'expires_at', reason: 'must be in the future' }]);
    if (expiresAt.getTime() > now.getTime() + max * DAY_MS) {
      throw invalidFields([{ field: 'expires_at', reason: `must be at most ${max} days ahead` }]);
    }
    return expiresAt;
  }
}
