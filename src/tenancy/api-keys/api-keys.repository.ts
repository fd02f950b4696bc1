import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import type { ApiKeyType } from '../../generated/prisma/enums';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { tenantSelect } from '../tenants.repository';

export const apiKeySelect = {
  id: true,
  tenantId: true,
  name: true,
  type: true,
  scopes: true,
  prefix: true,
  last4: true,
  expiresAt: true,
  lastUsedAt: true,
  createdAt: true,
  createdBy: true,
  createdByUser: { select: { name: true } },
} satisfies Prisma.ApiKeySelect;

export type ApiKeyRow = Prisma.ApiKeyGetPayload<{ select: typeof apiKeySelect }>;
export type AuthenticatedKeyRow = ApiKeyRow & { tenant: Prisma.TenantGetPayload<{ select: typeof tenantSelect }> };

export interface NewApiKey {
  name: string;
  type: ApiKeyType;
  scopes: string[];
  digest: string;
  prefix: string;
  last4: string;
  expiresAt: Date | null;
  /** The actor's name (`user:<id>`, `admin-api`, `api-key:<id>`). */
  createdBy: string;
  createdByUserId: string | null;
}

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The one lookup not scoped by tenant: authentication finds the tenant from the key's digest.
   * Deleted keys never match.
   */
  findByDigest(digest: string): Promise<AuthenticatedKeyRow | null> {
    return this.prisma.apiKey.findFirst({
      where: { digest, deletedAt: null },
      select: { ...apiKeySelect, tenant: { select: tenantSelect } },
    });
  }

  /** A key of the tenant that is not deleted. */
  findById(tenantId: string, keyId: string): Promise<ApiKeyRow | null> {
    return this.prisma.apiKey.findFirst({ where: { tenantId, id: keyId, deletedAt: null }, select: apiKeySelect });
  }

  list(tenantId: string): Promise<ApiKeyRow[]> {
    return this.prisma.apiKey.findMany({
      where: { tenantId, deletedAt: null },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: apiKeySelect,
    });
  }

  create(tenantId: string, data: NewApiKey, tx: PrismaTransaction = this.prisma): Promise<ApiKeyRow> {
    return tx.apiKey.create({ data: { tenantId, ...data }, select: apiKeySelect });
  }

  /** The ids of the tenant's keys (not deleted) that the user created, the rows locked until the transaction ends. */
  async lockCreatedBy(tenantId: string, userId: string, tx: PrismaTransaction): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "ApiKey"
      WHERE "tenantId" = ${tenantId}::uuid AND "createdByUserId" = ${userId}::uuid AND "deletedAt" IS NULL
      ORDER BY "id" FOR UPDATE`;
    return rows.map((row) => row.id);
  }

  /** Soft-deletes, keeping the row for the audit trail; returns false when there was no such key. */
  async delete(tenantId: string, keyId: string, at: Date, tx: PrismaTransaction = this.prisma): Promise<boolean> {
    const { count } = await tx.apiKey.updateMany({ where: { tenantId, id: keyId, deletedAt: null }, data: { deletedAt: at } });
    return count === 1;
  }

  /** Records use, at most once per `staleBefore` window, so hot keys do not write on every request. */
  async touchLastUsed(tenantId: string, keyId: string, at: Date, staleBefore: Date): Promise<void> {
    await this.prisma.apiKey.updateMany({
      where: { tenantId, id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
      data: { lastUsedAt: at },
    });
  }
}
