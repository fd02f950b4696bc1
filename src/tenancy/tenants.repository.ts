import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { Plan } from '../generated/prisma/enums';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

export const tenantSelect = { id: true, name: true, slug: true, plan: true, createdAt: true, updatedAt: true } satisfies Prisma.TenantSelect;
export type TenantRow = Prisma.TenantGetPayload<{ select: typeof tenantSelect }>;

@Injectable()
export class TenantsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findById(tenantId: string, tx: PrismaTransaction = this.prisma): Promise<TenantRow | null> {
    return tx.tenant.findUnique({ where: { id: tenantId }, select: tenantSelect });
  }

  /**
   * Locks the tenant's row until the transaction ends, serialising quota checks such as botsLimit
   * and the knowledge size. NO KEY UPDATE: rows that reference the tenant (messages, leads, audit
   * rows) take KEY SHARE on it as they are inserted, which FOR UPDATE would hold up meanwhile.
   */
  async lock(tenantId: string, tx: PrismaTransaction): Promise<void> {
    await tx.$queryRaw`SELECT 1 FROM "Tenant" WHERE "id" = ${tenantId}::uuid FOR NO KEY UPDATE`;
  }

  findBySlug(slug: string): Promise<TenantRow | null> {
    return this.prisma.tenant.findUnique({ where: { slug }, select: tenantSelect });
  }

  create(data: { name: string; slug: string; plan: Plan }, tx: PrismaTransaction = this.prisma): Promise<TenantRow> {
    return tx.tenant.create({ data, select: tenantSelect });
  }

  update(tenantId: string, data: { name?: string; plan?: Plan }, tx: PrismaTransaction = this.prisma): Promise<TenantRow> {
    return tx.tenant.update({ where: { id: tenantId }, data, select: tenantSelect });
  }

  count(): Promise<number> {
    return this.prisma.tenant.count();
  }
}
