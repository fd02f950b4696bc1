import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { assertDateRange } from '../common/paging/date-range';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { AuditEventFilter, AuditEventRow, AuditLogRepository } from './audit-log.repository';

/** Reads a tenant's audit log (the events module writes it). */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly auditLog: AuditLogRepository,
  ) {}

  /** Newest first, filtered by actor, action and a `createdAt` window (both ends inclusive). */
  async listEvents(tenantId: string, filter: AuditEventFilter, page: Page): Promise<{ events: AuditEventRow[]; pagination: Pagination }> {
    assertDateRange(filter);
    if (!(await this.tenants.findById(tenantId))) throw new NotFoundError('Tenant');
    const [events, total] = await Promise.all([this.auditLog.list(tenantId, filter, page), this.auditLog.count(tenantId, filter)]);
    return { events, pagination: toPagination(page, total) };
  }
}
