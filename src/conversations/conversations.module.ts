import { Module } from '@nestjs/common';
import { AnsweringModule } from '../answering/answering.module';
import { BotsModule } from '../bots/bots.module';
import { LeadsModule } from '../leads/leads.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { UsageModule } from '../usage/usage.module';
import { GlobalExceptionFilter } from '../common/errors/global-exception.filter';
import { ApiChannelController } from './api-channel/api-channel.controller';
import { ApiChannelRepository } from './api-channel/api-channel.repository';
import { ApiChannelService } from './api-channel/api-channel.service';
import { ConversationsController } from './conversations.controller';
import { HandoffController } from './handoff.controller';
import { HandoffService } from './handoff.service';
import { ConversationEventStreams } from './live/conversation-event-streams';
import { TenantEventStream } from './live/tenant-event-stream';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { ConversationTurn } from './turn/conversation-turn';
import { TurnStore } from './turn/turn-store';
import { VisitorsRepository } from './visitors/visitors.repository';

/** The conversation core (STYLE.md): conversations, their turns, handoff and live streams; channels (the widget, the API channel here) adapt it. */
@Module({
  imports: [TenancyModule, BotsModule, LeadsModule, IdempotencyModule, AnsweringModule, UsageModule],
  controllers: [ConversationsController, HandoffController, ApiChannelController],
  providers: [
    ConversationsRepository,
    ConversationsService,
    HandoffService,
    ConversationTurn,
    TurnStore,
    VisitorsRepository,
    ConversationEventStreams,
    TenantEventStream,
    ApiChannelRepository,
    ApiChannelService,
    GlobalExceptionFilter,
  ],
  exports: [ConversationsService, ConversationsRepository, HandoffService, ConversationTurn, VisitorsRepository, ConversationEventStreams],
})
export class ConversationsModule {}
