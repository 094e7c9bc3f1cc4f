import type { Clock } from '../../services/platform/clock';
import type { Page } from '../../services/rules/pagination';
import { ConflictError, invalidFields, NotFoundError } from '../../services/rules/errors';
import { isUuid } from '../../services/rules/ids';
import { API_KEY_ROLES, type ApiKeyRole } from './access.database';
import { generateApiKey, hashApiKey } from './api-key-secret';
import type { ApiKeyRecord, ApiKeyRepository } from './api-key.repository';
import type { ProjectRecord, ProjectRepository } from './project.repository';

/** A key together with its secret: exists only in the response that creates it. */
export interface IssuedApiKey {
  record: ApiKeyRecord;
  key: string;
}

const NAME_MAX = 100;

function checkName(value: string, field: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > NAME_MAX) {
    throw invalidFields([{ field, reason: `must be 1 to ${NAME_MAX} characters` }]);
  }
  return name;
}

/** Projects whose creation time is kept once read (it never changes); past this, the memo starts over. */
const CREATED_AT_MEMO_SIZE = 10_000;

export class AccessService {
  private readonly createdAt = new Map<string, Date>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  /** A project starts with one key of each role, created in the same transaction. */
  async createProject(name: string): Promise<{ project: ProjectRecord; keys: IssuedApiKey[] }> {
    const projectName = checkName(name, 'name');
    const now = this.clock.now();
    return this.projects.transaction(async (trx) => {
      const project = await this.projects.insert(projectName, now, trx);
      const keys: IssuedApiKey[] = [];
      for (const role of API_KEY_ROLES) {
        const secret = generateApiKey(role);
        const record = await this.apiKeys.insert(
          { projectId: project.id, role, name: `default ${role} key`, hash: secret.hash, prefix: secret.prefix, now },
          trx,
        );
        keys.push({ record, key: secret.key });
      }
      return { project, keys };
    });
  }

  async createApiKey(projectId: string, role: ApiKeyRole, name: string): Promise<IssuedApiKey> {
    const keyName = checkName(name, 'name');
    const secret = generateApiKey(role);
    const record = await this.apiKeys.insert({
      projectId,
      role,
      name: keyName,
      hash: secret.hash,
      prefix: secret.prefix,
      now: this.clock.now(),
    });
    return { record, key: secret.key };
  }

  listApiKeys(projectId: string, page: Page): Promise<{ records: ApiKeyRecord[]; total: number }> {
    return this.apiKeys.listActive(projectId, page);
  }

  /** An active key of the project (the caller's own, read after its authentication: revoked since, it is not found). */
  async getApiKey(projectId: string, keyId: string): Promise<ApiKeyRecord> {
    const record = await this.apiKeys.findActive(projectId, keyId);
    if (!record) throw new NotFoundError('API_KEY_NOT_FOUND', 'no active API key with this id in this project');
    return record;
  }

  async revokeApiKey(projectId: string, keyId: string): Promise<void> {
    const outcome = isUuid(keyId) ? await this.apiKeys.revoke(projectId, keyId, this.clock.now()) : 'not_found';
    if (outcome === 'not_found') throw new NotFoundError('API_KEY_NOT_FOUND', 'no active API key with this id in this project');
    if (outcome === 'last_admin') {
      throw new ConflictError('LAST_ADMIN_KEY', 'this is the project’s last admin key; create another admin key before revoking this one');
    }
  }

  /** Whether a project with this id exists (wallet sessions are not tied to one project). */
  async projectExists(projectId: string): Promise<boolean> {
    return isUuid(projectId) && this.projects.exists(projectId);
  }

  /** The project (its name, for the admin home), or undefined for none. */
  project(projectId: string): Promise<ProjectRecord | undefined> {
    return isUuid(projectId) ? this.projects.find(projectId) : Promise.resolve(undefined);
  }

  /**
   * When the project was created (undefined for no project): what the claim service counts the
   * earliest occurred_at of a conversion from. Read once per project and process: it never changes.
   */
  async projectCreatedAt(projectId: string): Promise<Date | undefined> {
    const known = this.createdAt.get(projectId);
    if (known) return known;
    const createdAt = isUuid(projectId) ? await this.projects.createdAt(projectId) : undefined;
    if (createdAt) {
      if (this.createdAt.size >= CREATED_AT_MEMO_SIZE) this.createdAt.clear();
      this.createdAt.set(projectId, createdAt);
    }
    return createdAt;
  }

  /** The active key a bearer token stands for, if any. */
  verifyApiKey(key: string): Promise<ApiKeyRecord | undefined> {
    return this.apiKeys.findActiveByHash(hashApiKey(key));
  }
}
