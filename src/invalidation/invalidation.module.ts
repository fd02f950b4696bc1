import { Module } from '@nestjs/common';
import { InvalidationBus } from './invalidation-bus';

@Module({ providers: [InvalidationBus], exports: [InvalidationBus] })
export class InvalidationModule {}
