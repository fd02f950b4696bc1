import { Module } from '@nestjs/common';
import { MessageQuotaRepository } from './message-quota.repository';

/** The plan's monthly message count: taken by the widget's replies, reported by /verify. */
@Module({ providers: [MessageQuotaRepository], exports: [MessageQuotaRepository] })
export class UsageModule {}
