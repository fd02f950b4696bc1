import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { BotsModule } from '../bots/bots.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { AdminApiKeysController } from './admin-api-keys.controller';
import { AdminAuditLogController } from './admin-audit-log.controller';
import { AdminBotsController } from './admin-bots.controller';
import { AdminTenantsController } from './admin-tenants.controller';
import { AdminUsersController } from './admin-users.controller';

/** The operator's API (/admin/v1; the dashboard does not use it): thin controllers over the features' services. */
@Module({
  imports: [TenancyModule, BotsModule, KnowledgeModule, ConversationsModule, AuditModule, AccountsModule],
  controllers: [AdminTenantsController, AdminApiKeysController, AdminBotsController, AdminAuditLogController, AdminUsersController],
})
export class AdminModule {}
