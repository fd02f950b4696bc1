import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { BotsModule } from '../bots/bots.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { LeadsModule } from '../leads/leads.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { DemoDataSeeder } from './demo-data';

@Module({
  imports: [TenancyModule, BotsModule, KnowledgeModule, ConversationsModule, LeadsModule, AccountsModule],
  providers: [DemoDataSeeder],
  exports: [DemoDataSeeder],
})
export class DemoModule {}
