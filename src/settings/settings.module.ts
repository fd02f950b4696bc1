import { Module } from '@nestjs/common';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { IdentitySecretController } from './identity-secret/identity-secret.controller';
import { IdentitySecretService } from './identity-secret/identity-secret.service';
import { SettingsController } from './settings.controller';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';
import { TenantSettingsCache } from './tenant-settings-cache';

@Module({
  imports: [TenancyModule, InvalidationModule],
  controllers: [SettingsController, IdentitySecretController],
  providers: [SettingsRepository, SettingsService, TenantSettingsCache, IdentitySecretService],
  exports: [SettingsService, SettingsRepository, TenantSettingsCache],
})
export class SettingsModule {}
