import { DynamicModule, Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ErasureWorker } from './erasure-worker';
import { ErasuresRepository } from './erasures.repository';
import { PeopleRepository } from './people.repository';
import { DEFAULT_PRIVACY_OPTIONS, PRIVACY_OPTIONS, type PrivacyOptions } from './privacy-options';
import { PrivacyController } from './privacy.controller';
import { PrivacyService } from './privacy.service';
import { RetentionRepository } from './retention.repository';
import { RetentionSweeper } from './retention-sweeper';

/** Export and erasure of a person's data, and the retention sweep (PRIVACY_WORKER switches the background work per instance). */
@Module({})
export class PrivacyModule {
  static forRoot(options: Partial<PrivacyOptions> = {}): DynamicModule {
    return {
      module: PrivacyModule,
      imports: [TenancyModule, IdempotencyModule],
      controllers: [PrivacyController],
      providers: [
        { provide: PRIVACY_OPTIONS, useValue: { ...DEFAULT_PRIVACY_OPTIONS, ...options } },
        PeopleRepository,
        ErasuresRepository,
        PrivacyService,
        ErasureWorker,
        RetentionRepository,
        RetentionSweeper,
      ],
      exports: [ErasureWorker, RetentionSweeper],
    };
  }
}
