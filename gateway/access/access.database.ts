import type { Generated } from 'kysely';

/** The gateway's own schema: projects and their API keys (authentication lives at the edge). */
export interface AccessDatabase {
  projects: ProjectTable;
  api_keys: ApiKeyTable;
}

/** `send:tracking_event`: a key that may only send tracking events (POST /api/v1/events), safe to embed in a web page. */
export const API_KEY_ROLES = ['admin', 'service_role', 'read_only', 'send:tracking_event'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export interface ProjectTable {
  id: Generated<string>;
  name: string;
  created_at: Date;
}

export interface ApiKeyTable {
  id: Generated<string>;
  project_id: string;
  role: ApiKeyRole;
  name: string;
  /** SHA-256 of the key: keys are 256-bit random, so a fast hash is enough and the key itself is never stored. */
  key_hash: Buffer;
  /** The first characters, so people can tell their keys apart in a list. */
  key_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}
