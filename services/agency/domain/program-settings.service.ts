import type { Clock } from '../../platform/clock';
import { invalidFields } from '../../rules/errors';
import type { Logger } from '../../platform/logger';
import { linkTemplateViolations, programUrlViolations } from '../../rules/referral-link';
import type { ProgramSettingsChanges, ProgramSettingsRecord, ProgramSettingsRepository } from '../repositories/program-settings.repository';
import { requireProjectId } from '../../rules/subject';

export interface ProgramSettingsUpdate {
  /** Which fields to change: "program_url", "link_template". A listed field left undefined or null is cleared. */
  mask: readonly string[];
  programUrl?: string | null;
  linkTemplate?: string | null;
}

const UPDATABLE = ['program_url', 'link_template'] as const;

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
    const violations = [
      ...unknown.map((field) => ({ field: 'update_mask', reason: `${field} cannot be changed; only ${UPDATABLE.join(', ')}` })),
      ...(typeof changes.programUrl === 'string' ? programUrlViolations(changes.programUrl) : []),
      ...(typeof changes.linkTemplate === 'string' ? linkTemplateViolations(changes.linkTemplate) : []),
    ];
    if (violations.length > 0) throw invalidFields(violations);
    if (Object.keys(changes).length === 0) return this.settings.get(projectId);
    const saved = await this.settings.update(projectId, changes, actorId, this.clock.now());
    this.logger.info({ project_id: projectId, fields: Object.keys(changes), actor_api_key_id: actorId }, 'program settings changed');
    return saved;
  }
}

/** Surrounding spaces dropped; null (or nothing) clears. An empty text is kept, for the check to refuse. */
function clean(value: string | null | undefined): string | null {
  return value === undefined || value === null ? null : value.trim();
}
