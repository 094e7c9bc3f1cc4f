import type { Kysely } from 'kysely';
import type { AgencyDatabase } from '../database';
import type { AttributionModel } from '../domain/vocabulary';

export interface ProgramSettingsRecord {
  programUrl: string | null;
  /** Null: the default template. */
  linkTemplate: string | null;
  /** Null until the settings are first written. */
  updatedAt: Date | null;
  updatedBy: string | null;
  /** How many days before a connect_wallet a click still counts. */
  attributionWindowDays: number;
  attributionModel: AttributionModel;
}

/** The attribution settings of a project that never set them (migration 0021's column defaults). */
export const DEFAULT_ATTRIBUTION = { attributionWindowDays: 30, attributionModel: 'first_click' } as const;

/** The settings of a project that never wrote any. */
export const DEFAULT_PROGRAM_SETTINGS: ProgramSettingsRecord = {
  programUrl: null,
  linkTemplate: null,
  updatedAt: null,
  updatedBy: null,
  ...DEFAULT_ATTRIBUTION,
};

/** What a write changes: a field left undefined keeps its value, null clears it. */
export interface ProgramSettingsChanges {
  programUrl?: string | null;
  linkTemplate?: string | null;
  attributionWindowDays?: number;
  attributionModel?: AttributionModel;
}

/** A project's affiliate program settings (migration 0016): one row per project, written by one upsert. */
export class ProgramSettingsRepository {
  constructor(private readonly db: Kysely<AgencyDatabase>) {}

  async get(projectId: string): Promise<ProgramSettingsRecord> {
    const row = await this.db.selectFrom('program_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
    return row ? toRecord(row) : DEFAULT_PROGRAM_SETTINGS;
  }

  /** Only the fields given change (the others keep what is stored, or the defaults); answers the settings after the write. */
  async update(projectId: string, changes: ProgramSettingsChanges, actorId: string | null, now: Date): Promise<ProgramSettingsRecord> {
    const row = await this.db
      .insertInto('program_settings')
      .values({
        project_id: projectId,
        program_url: changes.programUrl ?? null,
        link_template: changes.linkTemplate ?? null,
        updated_at: now,
        updated_by: actorId,
        attribution_window_days: changes.attributionWindowDays ?? DEFAULT_ATTRIBUTION.attributionWindowDays,
        attribution_model: changes.attributionModel ?? DEFAULT_ATTRIBUTION.attributionModel,
      })
      .onConflict((conflict) =>
        conflict.column('project_id').doUpdateSet((eb) => ({
          updated_at: eb.ref('excluded.updated_at'),
          updated_by: eb.ref('excluded.updated_by'),
          ...(changes.programUrl === undefined ? {} : { program_url: eb.ref('excluded.program_url') }),
          ...(changes.linkTemplate === undefined ? {} : { link_template: eb.ref('excluded.link_template') }),
          ...(changes.attributionWindowDays === undefined ? {} : { attribution_window_days: eb.ref('excluded.attribution_window_days') }),
          ...(changes.attributionModel === undefined ? {} : { attribution_model: eb.ref('excluded.attribution_model') }),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }
}

function toRecord(row: {
  program_url: string | null;
  link_template: string | null;
  updated_at: Date;
  updated_by: string | null;
  attribution_window_days: number;
  attribution_model: AttributionModel;
}): ProgramSettingsRecord {
  return {
    programUrl: row.program_url,
    linkTemplate: row.link_template,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    attributionWindowDays: row.attribution_window_days,
    attributionModel: row.attribution_model,
  };
}
