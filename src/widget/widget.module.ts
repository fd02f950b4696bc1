import { Module } from '@nestjs/common';
import { GlobalExceptionFilter } from '../common/errors/global-exception.filter';
import { ConversationsModule } from '../conversations/conversations.module';
import { LeadsModule } from '../leads/leads.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { UsageModule } from '../usage/usage.module';
import { ANSWERER } from './answerer';
import { WidgetController } from './widget.controller';
import { WidgetOriginGuard } from './widget-origin.guard';
import { WidgetRepository } from './widget.repository';
import { WidgetService } from './widget.service';

@Module({
  imports: [TenancyModule, ConversationsModule, LeadsModule, UsageModule],
  controllers: [WidgetController],
  providers: [WidgetRepository, WidgetService, WidgetOriginGuard, GlobalExceptionFilter, { provide: ANSWERER, useValue: null }],
  exports: [WidgetOriginGuard],
})
export class WidgetModule {}
