import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';

/** What the tenant says of one of its users: its own id, and optionally an e-mail and a name. */
export interface VisitorIdentity {
  externalId: string;
  email?: string | null;
  name?: string | null;
}

/** A new anonymous visitor's id: `v_` + 16 random characters (the widget's sessions mint these too). */
export const newVisitorId = (): string => `v_${randomBytes(12).toString('base64url')}`;

/**
 * The visitors a tenant identified (API_DECISIONS part 4, Known visitors). One row per external id:
 * the same visitor id on every device and channel, so their conversations follow them.
 */
@Injectable()
export class VisitorsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The visitor with this external id, made on first sight; its e-mail and name replaced by those
   * given (a field left out keeps its value), and copied to its conversations when they changed.
   * One upsert: two devices identifying the same user at once get the same id.
   */
  async identify(
    tenantId: string,
    identity: VisitorIdentity,
    tx: PrismaTransaction = this.prisma,
  ): Promise<{ id: string; email: string | null; name: string | null }> {
    const [visitor] = await tx.$queryRaw<{ id: string; email: string | null; name: string | null; changed: boolean }[]>`
      WITH "before" AS (SELECT "email", "name" FROM "Visitor" WHERE "tenantId" = ${tenantId}::uuid AND "externalId" = ${identity.externalId})
      INSERT INTO "Visitor" ("tenantId", "id", "externalId", "email", "name", "updatedAt")
      VALUES (${tenantId}::uuid, ${newVisitorId()}, ${identity.externalId}, ${identity.email ?? null}, ${identity.name ?? null}, now())
      ON CONFLICT ("tenantId", "externalId") DO UPDATE SET
        "email" = COALESCE(${identity.email ?? null}, "Visitor"."email"),
        "name" = COALESCE(${identity.name ?? null}, "Visitor"."name"),
        "updatedAt" = now()
      RETURNING "id", "email", "name",
        ("email", "name") IS DISTINCT FROM (SELECT ("email", "name") FROM "before") AS "changed"`;
    if (visitor.changed) {
      await tx.conversation.updateMany({
        where: { tenantId, visitorId: visitor.id },
        data: { visitorExternalId: identity.externalId, visitorEmail: visitor.email, visitorName: visitor.name },
      });
    }
    return { id: visitor.id, email: visitor.email, name: visitor.name };
  }

  /** An identified visitor's profile, for the conversations it starts; null for an anonymous visitor id. */
  async profileOf(tenantId: string, visitorId: string): Promise<VisitorIdentity | null> {
    return this.prisma.visitor.findUnique({
      where: { tenantId_id: { tenantId, id: visitorId } },
      select: { externalId: true, email: true, name: true },
    });
  }

  /** The visitor id of an external id, or null when the tenant never identified it. */
  async idOf(tenantId: string, externalId: string): Promise<string | null> {
    const visitor = await this.prisma.visitor.findUnique({ where: { tenantId_externalId: { tenantId, externalId } }, select: { id: true } });
    return visitor?.id ?? null;
  }
}
