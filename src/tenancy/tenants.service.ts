import { Injectable } from '@nestjs/common';
import { AuditEventRow, AuditLogRepository } from '../audit/audit-log.repository';
import { InvalidationBus } from '../invalidation/invalidation-bus';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { PrismaService } from '../database/prisma.service';
import { Prisma } from '../generated/prisma/client';
import type { Plan } from '../generated/prisma/enums';
import { TenantRow, TenantsRepository } from './tenants.repository';

export const ADMIN_ACTOR = 'admin-api';

@Injectable()
export class TenantsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tenants: TenantsRepository,
    private readonly auditLog: AuditLogRepository,
    private readonly bus: InvalidationBus,
  ) {}

  async getTenant(tenantId: string): Promise<TenantRow> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError('Tenant');
    return tenant;
  }

  async createTenant(input: { name: string; slug: string; plan: Plan }): Promise<TenantRow> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const tenant = await this.tenants.create(input, tx);
        await this.auditLog.create(tenant.id, { actor: ADMIN_ACTOR, action: 'tenant.created', targetType: 'tenant', targetId: tenant.id, data: { plan: tenant.plan } }, tx);
        return tenant;
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new AppError(ErrorCode.CONFLICT, 'A tenant with this slug already exists.');
      }
      throw error;
    }
  }

  /** Renames or changes the plan; a plan change is audited and takes effect on the next request. */
  async updateTenant(tenantId: string, input: { name?: string; plan?: Plan }): Promise<TenantRow> {
    const updated = await this.prisma.$transaction(async (tx) => {
      const before = await this.tenants.findById(tenantId, tx);
      if (!before) throw new NotFoundError('Tenant');
      const after = await this.tenants.update(tenantId, input, tx);
      if (before.plan !== after.plan) {
        await this.auditLog.create(tenantId, { actor: ADMIN_ACTOR, action: 'tenant.plan_changed', targetType: 'tenant', targetId: tenantId, data: { from: before.plan, to: after.plan } }, tx);
      }
      if (before.name !== after.name) {
        await this.auditLog.create(tenantId, { actor: ADMIN_ACTOR, action: 'tenant.renamed', targetType: 'tenant', targetId: tenantId, data: { from: before.name, to: after.name } }, tx);
      }
      return after;
    });
    // Cached keys carry the tenant's plan and name: every instance drops them.
    await this.bus.tenantChanged(tenantId);
    return updated;
  }

  async listAuditEvents(tenantId: string, page: Page): Promise<{ events: AuditEventRow[]; pagination: Pagination }> {
    await this.getTenant(tenantId);
    const [events, total] = await Promise.all([this.auditLog.list(tenantId, page), this.auditLog.count(tenantId)]);
    return { events, pagination: toPagination(page, total) };
  }
}
