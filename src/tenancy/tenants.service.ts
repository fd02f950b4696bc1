import { Injectable } from '@nestjs/common';
import { InvalidationBus } from '../invalidation/invalidation-bus';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { Prisma } from '../generated/prisma/client';
import type { Plan } from '../generated/prisma/enums';
import { TenantRow, TenantsRepository } from './tenants.repository';

@Injectable()
export class TenantsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tenants: TenantsRepository,
    private readonly events: EventRecorder,
    private readonly bus: InvalidationBus,
  ) {}

  async getTenant(tenantId: string): Promise<TenantRow> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError('Tenant');
    return tenant;
  }

  async createTenant(input: { name: string; slug: string; plan: Plan }, actor: Actor): Promise<TenantRow> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const tenant = await this.tenants.create(input, tx);
        await this.events.record(tx, tenant.id, actor, { action: 'tenant.created', targetId: tenant.id, data: { plan: tenant.plan } });
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
  async updateTenant(tenantId: string, input: { name?: string; plan?: Plan }, actor: Actor): Promise<TenantRow> {
    const updated = await this.prisma.$transaction(async (tx) => {
      const before = await this.tenants.findById(tenantId, tx);
      if (!before) throw new NotFoundError('Tenant');
      const after = await this.tenants.update(tenantId, input, tx);
      if (before.plan !== after.plan) {
        await this.events.record(tx, tenantId, actor, {
          action: 'tenant.plan_changed',
          targetId: tenantId,
          data: { from: before.plan, to: after.plan },
        });
      }
      if (before.name !== after.name) {
        await this.events.record(tx, tenantId, actor, {
          action: 'tenant.renamed',
          targetId: tenantId,
          data: { from: before.name, to: after.name },
        });
      }
      return after;
    });
    // Cached keys carry the tenant's plan and name: every instance drops them.
    await this.bus.tenantChanged(tenantId);
    return updated;
  }
}
