import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { BotsController } from './bots.controller';
import { BotsRepository } from './bots.repository';
import { BotsService } from './bots.service';

@Module({
  imports: [TenancyModule],
  controllers: [BotsController],
  providers: [BotsRepository, BotsService],
  exports: [BotsService, BotsRepository],
})
export class BotsModule {}
