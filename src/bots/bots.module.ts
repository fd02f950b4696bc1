import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { BotsController } from './bots.controller';
import { BotsRepository } from './bots.repository';
import { BotsService } from './bots.service';

@Module({
  imports: [TenancyModule, AuditModule],
  controllers: [BotsController],
  providers: [BotsRepository, BotsService],
  exports: [BotsService, BotsRepository],
})
export class BotsModule {}
