import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { LeadsModule } from '../leads/leads.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ConversationsController } from './conversations.controller';
import { HandoffController } from './handoff.controller';
import { HandoffService } from './handoff.service';
import { ConversationFeed } from './live/conversation-feed';
import { ConversationEventStreams } from './live/conversation-event-streams';
import { TenantEventStream } from './live/tenant-event-stream';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

@Module({
  imports: [TenancyModule, BotsModule, LeadsModule, IdempotencyModule],
  controllers: [ConversationsController, HandoffController],
  providers: [ConversationsRepository, ConversationsService, HandoffService, ConversationFeed, ConversationEventStreams, TenantEventStream],
  exports: [ConversationsService, ConversationsRepository, HandoffService, ConversationFeed, ConversationEventStreams],
})
export class ConversationsModule {}
