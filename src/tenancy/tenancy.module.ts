import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { ApiKeyCache } from './api-keys/api-key-cache';
import { ApiKeyHasher } from './api-keys/api-key-hasher';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApiKeysService } from './api-keys/api-keys.service';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  imports: [AuditModule, InvalidationModule],
  providers: [TenantsRepository, TenantsService, ApiKeysRepository, ApiKeysService, ApiKeyHasher, ApiKeyCache],
  exports: [TenantsService, TenantsRepository, ApiKeysService],
})
export class TenancyModule {}
