import { Module } from '@nestjs/common';
import { VerifyController } from './verify.controller';

/** GET /api/v1/verify: the key's own tenant and plan. */
@Module({ controllers: [VerifyController] })
export class VerifyModule {}
