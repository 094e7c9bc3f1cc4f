import type { Page } from '../../rules/pagination';
import type { AuditEntryRecord, AuditLogRepository } from '../repositories/audit-log.repository';
import { requireProjectId } from '../../rules/subject';

export class AuditLogService {
  constructor(private readonly auditLog: AuditLogRepository) {}

  /** Newest first. */
  list(projectId: string, page: Page): Promise<{ records: AuditEntryRecord[]; total: number }> {
    return this.auditLog.list(requireProjectId(projectId), page);
  }
}
