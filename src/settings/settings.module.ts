import { Module } from '@nestjs/common';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { SettingsController } from './settings.controller';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';
import { TenantSettingsCache } from './tenant-settings-cache';

@Module({
  imports: [TenancyModule, InvalidationModule],
  controllers: [SettingsController],
  providers: [SettingsRepository, SettingsService, TenantSettingsCache],
  exports: [SettingsService, SettingsRepository, TenantSettingsCache],
})
export class SettingsModule {}
