import { Module } from '@nestjs/common';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { AdminTokenGuard } from './admin-token.guard';
import { ApiKeyCache } from './api-keys/api-key-cache';
import { ApiKeyGuard } from './api-keys/api-key.guard';
import { ApiKeyHasher } from './api-keys/api-key-hasher';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApiKeysService } from './api-keys/api-keys.service';
import { ApiKeyActivityRecorder } from './api-keys/api-key-activity.recorder';
import { ApiKeyActivityRepository } from './api-keys/api-key-activity.repository';
import { ApiKeyActivityService } from './api-keys/api-key-activity.service';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { PlanGuard } from './plan.guard';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  imports: [InvalidationModule],
  controllers: [ApiKeysController],
  providers: [
    TenantsRepository,
    TenantsService,
    ApiKeysRepository,
    ApiKeysService,
    ApiKeyActivityRepository,
    ApiKeyActivityRecorder,
    ApiKeyActivityService,
    ApiKeyHasher,
    ApiKeyCache,
    ApiKeyGuard,
    AdminTokenGuard,
    PlanGuard,
  ],
  exports: [TenantsService, TenantsRepository, ApiKeysService, ApiKeyActivityRecorder, ApiKeyGuard, AdminTokenGuard, PlanGuard],
})
export class TenancyModule {}
