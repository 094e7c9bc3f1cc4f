import type { Clock } from '../../platform/clock';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { TraitRepository, TraitWrite, UserTraitRecord } from '../repositories/trait.repository';
import type { MatchingWaker } from './incremental-matching';
import { type CheckedTrait, checkTraits, type TraitInput, traitValueJson } from './trait-fields';

export interface TraitBatchOutcome {
  received: number;
  /** Stored: new, or at least as new as the stored write of the same user and name. */
  written: number;
  /** Older than the stored write, or superseded by a later write of the same user and name in the batch. */
  ignored: number;
}

/**
 * Traits a project pushes for its users, read by conditions as `trait:<name>`. Per
 * (user, name) the last write wins by its updated_at, or by its arrival when it has none; so a
 * batch sent twice, or late, never brings an older value back.
 */
export class UserTraitService {
  constructor(
    private readonly traits: TraitRepository,
    private readonly clock: Clock,
    /** Woken after a commit that recorded users to re-match. */
    private readonly matching: MatchingWaker,
  ) {}

  async upsert(projectId: string, inputs: readonly TraitInput[]): Promise<TraitBatchOutcome> {
    const now = this.clock.now();
    const checked = checkTraits(inputs, now);
    // The users whose traits changed are recorded for re-matching in the same transaction.
    const written = await this.traits.upsert(projectId, latestPerKey(checked, now), now);
    if (written.length > 0) this.matching.wake();
    return { received: inputs.length, written: written.length, ignored: inputs.length - written.length };
  }

  async list(projectId: string, identifier: string, identifierType: string, page: Page): Promise<{ records: UserTraitRecord[]; total: number }> {
    const user = normalizeIdentifier(identifier, identifierType, 'user');
    return this.traits.list(projectId, user, page);
  }
}

/** One write per (user, name): the latest by updated_at, the later in the batch on a tie. */
function latestPerKey(traits: readonly CheckedTrait[], now: Date): TraitWrite[] {
  const byKey = new Map<string, TraitWrite>();
  for (const trait of traits) {
    const write: TraitWrite = { user: trait.user, name: trait.name, valueJson: traitValueJson(trait.value), updatedAt: trait.updatedAt ?? now };
    const key = `${trait.user.identifierType}\u0000${trait.user.identifier}\u0000${trait.name}`;
    const held = byKey.get(key);
    if (!held || held.updatedAt.getTime() <= write.updatedAt.getTime()) byKey.set(key, write);
  }
  return [...byKey.values()];
}
