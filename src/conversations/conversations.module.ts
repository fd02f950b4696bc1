import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { LeadsModule } from '../leads/leads.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ConversationsController } from './conversations.controller';
import { HandoffController } from './handoff.controller';
import { HandoffService } from './handoff.service';
import { ConversationFeed } from './live/conversation-feed';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

@Module({
  imports: [TenancyModule, BotsModule, LeadsModule, IdempotencyModule],
  controllers: [ConversationsController, HandoffController],
  providers: [ConversationsRepository, ConversationsService, HandoffService, ConversationFeed],
  exports: [ConversationsService, ConversationsRepository, HandoffService, ConversationFeed],
})
export class ConversationsModule {}
