import type { TraitValue, UserTrait } from '../../../gen/referral/audience/v1/audience';
import { count, required } from '../../http/present';

/** gRPC messages -> the JSON the traits API documents (user-traits.schemas.ts). */
export function presentTraitValue(value: TraitValue | undefined): number | string | boolean {
  const held = required(value, 'value');
  if (held.number !== undefined) return Number(held.number);
  if (held.text !== undefined) return held.text;
  return required(held.flag, 'value');
}

export function presentUserTrait(trait: UserTrait) {
  return { name: trait.name, value: presentTraitValue(trait.value), updated_at: required(trait.updatedAt, 'updated_at').toISOString() };
}

export function presentTraitCounts(counts: { received: string; written: string; ignored: string }) {
  return { received: count(counts.received, 'received'), written: count(counts.written, 'written'), ignored: count(counts.ignored, 'ignored') };
}
