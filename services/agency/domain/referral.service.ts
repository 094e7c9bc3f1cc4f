import type { Clock } from '../../platform/clock';
import { ConflictError, FailedPreconditionError, NotFoundError } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import type { OutboxWaker } from '../../platform/outbox/relay';
import type { ReferralRecord, ReferralRepository, ReferrerRecord } from '../repositories/referral.repository';
import { checkCode, throwIfInvalid } from './affiliate-fields';
import { subject, type UserInput } from '../../rules/subject';
import { normalizeIdentifier } from '../../rules/identifiers';

/**
 * Who referred whom: the first referral of a user wins and is never overwritten;
 * an affiliate cannot refer itself, nor be referred by its own downline (no cycle of referral levels); a suspended affiliate's code refers nobody.
 */
export class ReferralService {
  constructor(
    private readonly referrals: ReferralRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly outbox: OutboxWaker,
  ) {}

  /**
   * Refers a user with a code. The same affiliate again answers the stored referral (created
   * false, unchanged even when another of its codes is given); another affiliate is refused.
   */
  async refer(projectIdInput: string, userInput: UserInput, codeInput: string): Promise<{ referral: ReferralRecord; created: boolean }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const code = checkCode(codeInput);
    throwIfInvalid(code);
    const outcome = await this.referrals.refer(projectId, user, code.value, this.clock.now());
    switch (outcome.kind) {
      case 'created':
        this.outbox.wake();
        this.logger.info({ project_id: projectId, affiliate_id: outcome.referral.affiliate.id }, 'user referred');
        return { referral: outcome.referral, created: true };
      case 'existing':
        if (!outcome.sameAffiliate) {
          throw new ConflictError('ALREADY_REFERRED', 'this user was already referred by another affiliate; the first referral stays');
        }
        return { referral: outcome.referral, created: false };
      case 'no_code':
        throw new NotFoundError('CODE_NOT_FOUND', `no affiliate of this project has the code ${code.value}`);
      case 'exhausted':
        throw new ConflictError('CODE_EXHAUSTED', `the invite code ${code.value} has no use left (or is disabled)`);
      case 'self_referral':
        throw new FailedPreconditionError('SELF_REFERRAL', 'an affiliate cannot refer itself');
      case 'cycle':
        throw new ConflictError(
          'REFERRAL_CYCLE',
          'this user is an affiliate above the code’s affiliate in its referral chain; the referral would close a cycle',
        );
      case 'suspended':
        throw new ConflictError('AFFILIATE_SUSPENDED', 'the affiliate holding this code is suspended; its codes refer nobody');
    }
  }

  /**
   * Ends the user's referral by `referrer` through `code`: by the user (its signature checked by the
   * gateway) or an admin key. History is kept; the user may then be referred again.
   */
  async end(
    projectIdInput: string,
    userInput: UserInput,
    codeInput: string,
    referrerInput: UserInput,
    ending: { byUser: boolean; actorId: string | null },
  ): Promise<ReferralRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const referrer = normalizeIdentifier(referrerInput.identifier, referrerInput.identifierType, 'referrer');
    const ended =
      checkCode(codeInput).violations.length === 0
        ? await this.referrals.end(
            projectId,
            user,
            { code: codeInput, referrer },
            { by: ending.byUser ? 'user' : 'admin', actorId: ending.actorId },
            this.clock.now(),
          )
        : undefined;
    if (!ended) throw new NotFoundError('REFERRAL_NOT_FOUND', 'this user has no referral by this referrer through this code');
    this.logger.info({ project_id: projectId, affiliate_id: ended.affiliate.id, by_user: ending.byUser }, 'referral ended');
    return ended;
  }

  async referrer(projectIdInput: string, userInput: UserInput): Promise<ReferrerRecord | undefined> {
    const { projectId, user } = subject(projectIdInput, userInput);
    return this.referrals.findReferrer(projectId, user);
  }
}
