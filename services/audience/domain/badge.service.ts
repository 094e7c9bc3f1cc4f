import type { Clock } from '../../platform/clock';
import { AlreadyExistsError, type FieldViolation, NotFoundError } from '../../rules/errors';
import { BadgeExists, type BadgeFields, type BadgeRepository } from '../repositories/badge.repository';
import type { BadgeRecord, SegmentRepository } from '../repositories/segment.repository';
import { checkDescription, checkImageUrl, checkName, LIMITS, throwIfInvalid } from './segment-fields';
import { requireSegment, segmentNotFound } from './segment-lookup';

export interface BadgeInput {
  name?: string;
  description?: string | null;
  imageUrl?: string | null;
}

/** The fields an update may name (as the API spells them), and the badge field each one is. */
const UPDATABLE_BADGE_FIELDS: Record<string, keyof BadgeFields> = { name: 'name', description: 'description', image_url: 'imageUrl' };

function badgeNotFound(): NotFoundError {
  return new NotFoundError('BADGE_NOT_FOUND', 'this audience has no badge');
}

/** One badge per segment: create when there is none, update or delete the one there is. */
export class BadgeService {
  constructor(
    private readonly segments: SegmentRepository,
    private readonly badges: BadgeRepository,
    private readonly clock: Clock,
  ) {}

  async create(projectId: string, segmentId: string, input: BadgeInput): Promise<BadgeRecord> {
    const { fields, violations } = checkBadge(input);
    throwIfInvalid(Object.values(violations).flat());
    const segment = await requireSegment(this.segments, projectId, segmentId);
    if (segment.badge) throw badgeExists();
    try {
      const badge = await this.badges.insert(segmentId, fields, this.clock.now());
      if (!badge) throw segmentNotFound();
      return badge;
    } catch (error) {
      throw error instanceof BadgeExists ? badgeExists() : error;
    }
  }

  async update(projectId: string, segmentId: string, mask: string[], input: BadgeInput): Promise<BadgeRecord> {
    const fields = validate(input, mask);
    const segment = await requireSegment(this.segments, projectId, segmentId);
    if (!segment.badge) throw badgeNotFound();
    const badge = await this.badges.update(segmentId, fields, this.clock.now());
    if (!badge) throw badgeNotFound();
    return badge;
  }

  async delete(projectId: string, segmentId: string): Promise<void> {
    await requireSegment(this.segments, projectId, segmentId);
    if (!(await this.badges.delete(segmentId))) throw badgeNotFound();
  }
}

function badgeExists(): AlreadyExistsError {
  return new AlreadyExistsError('BADGE_EXISTS', 'this audience already has a badge; update it with PATCH');
}

/** Every field of a badge, checked; an absent field reads as unset (a name must be given). */
function checkBadge(input: BadgeInput): { fields: BadgeFields; violations: Record<keyof BadgeFields, FieldViolation[]> } {
  const name = checkName(input.name ?? '');
  const description = checkDescription(input.description, LIMITS.badgeDescriptionLength);
  const imageUrl = checkImageUrl(input.imageUrl);
  return {
    fields: { name: name.value, description: description.value, imageUrl: imageUrl.value },
    violations: { name: name.violations, description: description.violations, imageUrl: imageUrl.violations },
  };
}

/** The fields the mask names, checked; a named field left unset is cleared. */
function validate(input: BadgeInput, mask: string[]): Partial<BadgeFields> {
  const checked = checkBadge(input);
  const fields: Partial<BadgeFields> = {};
  const violations: FieldViolation[] = [];
  for (const path of mask) {
    const field = Object.hasOwn(UPDATABLE_BADGE_FIELDS, path) ? UPDATABLE_BADGE_FIELDS[path] : undefined;
    if (field === undefined) {
      violations.push({ field: path, reason: 'is not a badge field' });
      continue;
    }
    Object.assign(fields, { [field]: checked.fields[field] });
    violations.push(...checked.violations[field]);
  }
  throwIfInvalid(violations);
  return fields;
}
