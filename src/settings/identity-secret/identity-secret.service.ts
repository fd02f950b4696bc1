import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service';
import type { Actor } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import { generateIdentitySecret } from './identity-secret';

/**
 * The tenant's identity secret (API_DECISIONS part 4, Known visitors): made or replaced, and
 * deleted. Both are audited, and both drop the cached settings on every instance once committed
 * (InvalidationBus -> TenantSettingsCache), so a token signed with a replaced or deleted secret is
 * refused from the next widget session on, whichever instance serves it.
 */
@Injectable()
export class IdentitySecretService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
    private readonly bus: InvalidationBus,
  ) {}

  /** A new secret, replacing any earlier one. */
  async create(tenantId: string, actor: Actor): Promise<string> {
    const secret = generateIdentitySecret();
    await this.prisma.$transaction(async (tx) => {
      await tx.tenant.update({ where: { id: tenantId }, data: { identitySecret: secret }, select: { id: true } });
      await this.events.record(tx, tenantId, actor, { action: 'identity_secret.created', targetId: tenantId });
    });
    await this.bus.tenantChanged(tenantId);
    return secret;
  }

  /**
   * No secret: identity tokens are refused. `identityRequired` goes back to false with it, or every
   * widget session would be refused (none could bring a valid token). Deleting none changes nothing.
   */
  async delete(tenantId: string, actor: Actor): Promise<void> {
    const deleted = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.tenant.updateMany({
        where: { id: tenantId, identitySecret: { not: null } },
        data: { identitySecret: null, identityRequired: false },
      });
      if (count) await this.events.record(tx, tenantId, actor, { action: 'identity_secret.deleted', targetId: tenantId });
      return count > 0;
    });
    if (deleted) await this.bus.tenantChanged(tenantId);
  }
}
