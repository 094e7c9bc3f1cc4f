import type { Clock } from '../../common/clock';
import { AlreadyExistsError, NotFoundError } from '../../common/errors';
import { BadgeExists, type BadgeFields, type BadgeRepository } from '../repositories/badge.repository';
import type { BadgeRecord, SegmentRepository } from '../repositories/segment.repository';
import { checkDescription, checkImageUrl, checkName, LIMITS, throwIfInvalid } from './segment-fields';
import { requireSegment, segmentNotFound } from './segment-lookup';

export interface BadgeInput {
  name?: string;
  description?: string | null;
  imageUrl?: string | null;
}

export const UPDATABLE_BADGE_FIELDS = ['name', 'description', 'image_url'] as const;

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
    const fields = validate(input, ['name', 'description', 'image_url']) as BadgeFields;
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

function validate(input: BadgeInput, mask: string[]): Partial<BadgeFields> {
  const fields: Partial<BadgeFields> = {};
  const violations = [];
  const unknown = mask.filter((path) => !(UPDATABLE_BADGE_FIELDS as readonly string[]).includes(path));
  violations.push(...unknown.map((field) => ({ field, reason: 'is not a badge field' })));
  if (mask.includes('name')) {
    const name = checkName(input.name ?? '');
    violations.push(...name.violations);
    fields.name = name.value;
  }
  if (mask.includes('description')) {
    const description = checkDescription(input.description, LIMITS.badgeDescriptionLength);
    violations.push(...description.violations);
    fields.description = description.value;
  }
  if (mask.includes('image_url')) {
    const imageUrl = checkImageUrl(input.imageUrl);
    violations.push(...imageUrl.violations);
    fields.imageUrl = imageUrl.value;
  }
  throwIfInvalid(violations);
  return fields;
}
