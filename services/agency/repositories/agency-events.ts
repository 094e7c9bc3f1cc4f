import type { NewOutboxEvent } from '../../platform/outbox/event';
import type { UserIdentifier } from '../../rules/identifiers';
import type { AffiliateStatus } from '../domain/vocabulary';

/**
 * The events the agency announces about affiliates and applications (services/platform/events/contracts.ts),
 * built here so that every repository writing one in its transaction spells it the same way.
 */
const userOf = (user: UserIdentifier) => ({ identifier: user.identifier, identifier_type: user.identifierType });

export type AffiliateSource = 'admin' | 'self_service' | 'application';

export function affiliateCreatedEvent(affiliate: {
  id: string;
  projectId: string;
  user: UserIdentifier;
  name: string;
  region: string | null;
  codes: readonly string[];
  source: AffiliateSource;
  applicationId: string | null;
  joinedAt: Date;
}): NewOutboxEvent {
  return {
    type: 'agency.affiliate.created',
    projectId: affiliate.projectId,
    payload: {
      affiliate_id: affiliate.id,
      user: userOf(affiliate.user),
      name: affiliate.name,
      region: affiliate.region,
      codes: [...affiliate.codes],
      source: affiliate.source,
      application_id: affiliate.applicationId,
      joined_at: affiliate.joinedAt.toISOString(),
    },
  };
}

export function statusChangedEvent(change: {
  affiliateId: string;
  projectId: string;
  user: UserIdentifier;
  from: AffiliateStatus;
  to: AffiliateStatus;
  reason: string | null;
  at: Date;
}): NewOutboxEvent {
  return {
    type: 'agency.affiliate.status_changed',
    projectId: change.projectId,
    payload: {
      affiliate_id: change.affiliateId,
      user: userOf(change.user),
      from: change.from,
      to: change.to,
      reason: change.reason,
      changed_at: change.at.toISOString(),
    },
  };
}

export function applicationDecidedEvent(application: {
  id: string;
  projectId: string;
  user: UserIdentifier;
  decision: 'approved' | 'rejected';
  reason: string | null;
  audienceId: string | null;
  affiliateId: string | null;
  decidedAt: Date;
}): NewOutboxEvent {
  return {
    type: 'agency.application.decided',
    projectId: application.projectId,
    payload: {
      application_id: application.id,
      user: userOf(application.user),
      decision: application.decision,
      reason: application.reason,
      audience_id: application.audienceId,
      affiliate_id: application.affiliateId,
      decided_at: application.decidedAt.toISOString(),
    },
  };
}

export function referralCreatedEvent(referral: {
  projectId: string;
  user: UserIdentifier;
  affiliate: { id: string; user: UserIdentifier };
  referredAt: Date;
}): NewOutboxEvent {
  return {
    type: 'agency.referral.created',
    projectId: referral.projectId,
    payload: {
      project_id: referral.projectId,
      user: userOf(referral.user),
      affiliate: { id: referral.affiliate.id, user: userOf(referral.affiliate.user) },
      referred_at: referral.referredAt.toISOString(),
    },
  };
}
