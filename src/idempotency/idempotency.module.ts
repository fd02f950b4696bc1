import { Module } from '@nestjs/common';
import { IdempotencyRecordsRepository } from './idempotency-records.repository';
import { IdempotencyService } from './idempotency.service';

@Module({
  providers: [IdempotencyRecordsRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
