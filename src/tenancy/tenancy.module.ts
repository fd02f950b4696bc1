import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { InvalidationBus } from '../common/cache/invalidation-bus';
import { ApiKeyCache } from './api-keys/api-key-cache';
import { ApiKeyHasher } from './api-keys/api-key-hasher';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApiKeysService } from './api-keys/api-keys.service';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';
import { VerifyController } from './verify.controller';

@Module({
  imports: [AuditModule],
  controllers: [VerifyController],
  providers: [TenantsRepository, TenantsService, ApiKeysRepository, ApiKeysService, ApiKeyHasher, ApiKeyCache, InvalidationBus],
  exports: [TenantsService, TenantsRepository, ApiKeysService],
})
export class TenancyModule {}
