import { Module } from '@nestjs/common';
import { UsageModule } from '../usage/usage.module';
import { VerifyController } from './verify.controller';

/** GET /api/v1/verify: the key's own tenant, its plan and the month's usage. */
@Module({ imports: [UsageModule], controllers: [VerifyController] })
export class VerifyModule {}
