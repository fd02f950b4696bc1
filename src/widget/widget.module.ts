import { Module } from '@nestjs/common';
import { GlobalExceptionFilter } from '../common/errors/global-exception.filter';
import { ConversationsModule } from '../conversations/conversations.module';
import { SettingsModule } from '../settings/settings.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { WidgetAssetsController } from './widget-assets.controller';
import { WidgetController } from './widget.controller';
import { WidgetOriginGuard } from './widget-origin.guard';
import { WidgetRepository } from './widget.repository';
import { WidgetService } from './widget.service';
import { VisitorEventStream } from './visitor-event-stream';
import { HealthModule } from '../health/health.module';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { VisitorTokens } from './visitor-token';
import { VisitorTokenGuard } from './visitor-token.guard';
import { WidgetLimits } from './widget-limits';

@Module({
  imports: [TenancyModule, ConversationsModule, SettingsModule, HealthModule],
  controllers: [WidgetController, WidgetAssetsController],
  providers: [
    WidgetRepository,
    WidgetService,
    VisitorEventStream,
    WidgetLimits,
    WidgetOriginGuard,
    VisitorTokenGuard,
    { provide: VisitorTokens, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new VisitorTokens(config.widget.tokenSecret) },
    GlobalExceptionFilter,
  ],
  exports: [WidgetOriginGuard, VisitorTokenGuard],
})
export class WidgetModule {}
