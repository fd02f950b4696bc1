import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AccountsModule } from './accounts/accounts.module';
import { AdminModule } from './admin/admin.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { BotsModule } from './bots/bots.module';
import { callerChecksProvider } from './caller-checks';
import { AccessRuleGuard } from './common/access/access-rule.guard';
import { GlobalExceptionFilter } from './common/errors/global-exception.filter';
import { JsonBodyGuard } from './common/http/json-body.guard';
import { UndeclaredInputGuard } from './common/validation/undeclared-input.guard';
import { DashboardModule } from './dashboard/dashboard.module';
import { OpenApiModule } from './openapi/openapi.module';
import { PrivacyModule } from './privacy/privacy.module';
import type { PrivacyOptions } from './privacy/privacy-options';
import type { RateLimitPlans } from './rate-limit/plan-limits';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { createValidationPipe } from './common/validation/validation.pipe';
import { APP_CONFIG, AppConfig } from './config/env';
import { ConversationsModule } from './conversations/conversations.module';
import { DEFAULT_LIVE_STREAM_OPTIONS, LIVE_STREAM_OPTIONS, type LiveStreamOptions } from './conversations/live/live-stream-options';
import { DATABASE_CONNECTION, DatabaseConnection } from './database/database-connection';
import { DatabaseModule } from './database/database.module';
import { DemoModule } from './demo/demo.module';
import { EventsModule } from './events/events.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { LeadsModule } from './leads/leads.module';
import { PLAN_REQUEST_LIMITS } from './tenancy/plans';
import { SettingsModule } from './settings/settings.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { VerifyModule } from './verify/verify.module';
import { WidgetModule } from './widget/widget.module';
import { WebhookDeliveryModule } from './webhooks/delivery/delivery.module';
import { EmbeddingsWorkerModule } from './answering/embeddings/embeddings.module';
import type { EmbeddingsWorkerOptions } from './answering/embeddings/embeddings-options';
import type { DeliveryOptions } from './webhooks/delivery/delivery-options';
import { WebhooksModule } from './webhooks/webhooks.module';
import { JobsModule } from './jobs/jobs.module';

@Module({})
export class AppModule {
  /** The app on a validated configuration and an open database (main.ts and the e2e tests). */
  static forRoot(
    config: AppConfig,
    connection: DatabaseConnection,
    options: {
      rateLimitPlans?: RateLimitPlans;
      webhookDelivery?: Partial<DeliveryOptions>;
      privacy?: Partial<PrivacyOptions>;
      embeddings?: Partial<EmbeddingsWorkerOptions>;
      liveStreams?: Partial<LiveStreamOptions>;
    } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        LoggingModule.forRoot(config),
        DatabaseModule,
        RedisModule.forRoot(config),
        EventsModule,
        JobsModule,
        HealthModule,
        RateLimitModule.forRoot(config, options.rateLimitPlans ?? PLAN_REQUEST_LIMITS),
        TenancyModule,
        AccountsModule,
        VerifyModule,
        BotsModule,
        ConversationsModule,
        LeadsModule,
        AdminModule,
        WebhooksModule,
        AnalyticsModule,
        SettingsModule,
        WidgetModule,
        WebhookDeliveryModule.forRoot(options.webhookDelivery),
        // RETENTION_CHECK_SECONDS sets how often the sweep is looked for; a test's own options win.
        PrivacyModule.forRoot({ sweepCheckMs: config.privacy.sweepCheckMs, ...options.privacy }),
        EmbeddingsWorkerModule.forRoot(options.embeddings),
        DemoModule,
        OpenApiModule,
        DashboardModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: DATABASE_CONNECTION, useValue: connection },
        // The live streams' lifetime and backlog limit: the contract's, unless a test shortens them.
        { provide: LIVE_STREAM_OPTIONS, useValue: { ...DEFAULT_LIVE_STREAM_OPTIONS, ...options.liveStreams } },
        { provide: APP_FILTER, useClass: GlobalExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // The route's access rule picks the checks of its kind of caller (caller-checks.ts); the
        // body is read after all of them (JsonBodyGuard, last).
        callerChecksProvider,
        { provide: APP_GUARD, useClass: AccessRuleGuard },
        { provide: APP_GUARD, useClass: JsonBodyGuard },
        // Then input the handler does not declare (a query string, body fields) is refused.
        { provide: APP_GUARD, useClass: UndeclaredInputGuard },
      ],
      exports: [APP_CONFIG, DATABASE_CONNECTION, LIVE_STREAM_OPTIONS],
    };
  }
}
