import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { AuditEventRow, AuditLogRepository } from './audit-log.repository';

/** Reads a tenant's audit log (the events module writes it). */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly auditLog: AuditLogRepository,
  ) {}

  async listEvents(tenantId: string, page: Page): Promise<{ events: AuditEventRow[]; pagination: Pagination }> {
    if (!(await this.tenants.findById(tenantId))) throw new NotFoundError('Tenant');
    const [events, total] = await Promise.all([this.auditLog.list(tenantId, page), this.auditLog.count(tenantId)]);
    return { events, pagination: toPagination(page, total) };
  }
}
