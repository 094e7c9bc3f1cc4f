import type { Clock } from '../../platform/clock';
import { invalidFields } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import { linkTemplateViolations, programUrlViolations } from '../../rules/referral-link';
import {
  DEFAULT_ATTRIBUTION,
  type ProgramSettingsChanges,
  type ProgramSettingsRecord,
  type ProgramSettingsRepository,
} from '../repositories/program-settings.repository';
import type { AttributionModel } from './vocabulary';
import { requireProjectId } from '../../rules/subject';

export interface ProgramSettingsUpdate {
  /**
   * Which fields to change: "program_url", "link_template", "attribution_window_days", "attribution_model".
   * A listed field left undefined or null is cleared (the attribution settings return to their defaults).
   */
  mask: readonly string[];
  programUrl?: string | null;
  linkTemplate?: string | null;
  attributionWindowDays?: number | null;
  attributionModel?: AttributionModel | null;
}

const UPDATABLE = ['program_url', 'link_template', 'attribution_window_days', 'attribution_model'] as const;

/** The attribution window's bounds, in days (migration 0021 checks the same). */
export const ATTRIBUTION_WINDOW_DAYS = { min: 1, max: 365 } as const;

/**
 * A project's affiliate program settings: the program URL and the referral link template
 * (services/rules/referral-link.ts). The agency keeps them because a link is made of the codes it
 * owns, and the portal reads both in the same place. Every value is checked before anything is
 * written; a bad one changes nothing.
 */
export class ProgramSettingsService {
  constructor(
    private readonly settings: ProgramSettingsRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async get(projectIdInput: string): Promise<ProgramSettingsRecord> {
    return this.settings.get(requireProjectId(projectIdInput));
  }

  async update(projectIdInput: string, update: ProgramSettingsUpdate, actorId: string | null): Promise<ProgramSettingsRecord> {
    const projectId = requireProjectId(projectIdInput);
    const unknown = update.mask.filter((field) => !(UPDATABLE as readonly string[]).includes(field));
    const changes: ProgramSettingsChanges = {};
    if (update.mask.includes('program_url')) changes.programUrl = clean(update.programUrl);
    if (update.mask.includes('link_template')) changes.linkTemplate = clean(update.linkTemplate);
    if (update.mask.includes('attribution_window_days')) {
      changes.attributionWindowDays = update.attributionWindowDays ?? DEFAULT_ATTRIBUTION.attributionWindowDays;
    }
    if (update.mask.includes('attribution_model')) changes.attributionModel = update.attributionModel ?? DEFAULT_ATTRIBUTION.attributionModel;
    const violations = [
      ...unknown.map((field) => ({ field: 'update_mask', reason: `${field} cannot be changed; only ${UPDATABLE.join(', ')}` })),
      ...(typeof changes.programUrl === 'string' ? programUrlViolations(changes.programUrl) : []),
      ...(typeof changes.linkTemplate === 'string' ? linkTemplateViolations(changes.linkTemplate) : []),
      ...windowViolations(changes.attributionWindowDays),
    ];
    if (violations.length > 0) throw invalidFields(violations);
    if (Object.keys(changes).length === 0) return this.settings.get(projectId);
    const saved = await this.settings.update(projectId, changes, actorId, this.clock.now());
    this.logger.info({ project_id: projectId, fields: Object.keys(changes), actor_api_key_id: actorId }, 'program settings changed');
    return saved;
  }
}

function windowViolations(days: number | undefined): { field: string; reason: string }[] {
  if (days === undefined || (Number.isInteger(days) && days >= ATTRIBUTION_WINDOW_DAYS.min && days <= ATTRIBUTION_WINDOW_DAYS.max)) return [];
  return [
    {
      field: 'attribution_window_days',
      reason: `must be a whole number of days from ${ATTRIBUTION_WINDOW_DAYS.min} to ${ATTRIBUTION_WINDOW_DAYS.max}`,
    },
  ];
}

/** Surrounding spaces dropped; null (or nothing) clears. An empty text is kept, for the check to refuse. */
function clean(value: string | null | undefined): string | null {
  return value === undefined || value === null ? null : value.trim();
}
