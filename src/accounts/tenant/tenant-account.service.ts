import { Injectable } from '@nestjs/common';
import { BotsRepository } from '../../bots/bots.repository';
import type { Actor } from '../../events/actor';
import { TenantRequestUsage } from '../../rate-limit/tenant-request-usage';
import { KnowledgeService } from '../../knowledge/knowledge.service';
import { TenantsService } from '../../tenancy/tenants.service';
import { MessageQuota } from '../../usage/message-quota';
import { TenantAccountResponse, toTenantAccountResponse } from './tenant-account.mapper';

/** The tenant as its users see it: plan, limits and what is used of them. */
@Injectable()
export class TenantAccountService {
  constructor(
    private readonly tenants: TenantsService,
    private readonly bots: BotsRepository,
    private readonly usage: MessageQuota,
    private readonly requests: TenantRequestUsage,
    private readonly knowledge: KnowledgeService,
  ) {}

  async view(tenantId: string): Promise<TenantAccountResponse> {
    const [tenant, messagesThisMonth, botCount, requestsThisHour, knowledgeCharacters] = await Promise.all([
      this.tenants.getTenant(tenantId),
      this.usage.usedThisMonth(tenantId),
      this.bots.count(tenantId),
      this.requests.thisHour(tenantId),
      this.knowledge.knowledgeCharacters(tenantId),
    ]);
    return toTenantAccountResponse(tenant, { messagesThisMonth, botCount, requestsThisHour, knowledgeCharacters });
  }

  async rename(tenantId: string, name: string, actor: Actor): Promise<TenantAccountResponse> {
    await this.tenants.updateTenant(tenantId, { name }, actor);
    return this.view(tenantId);
  }
}
