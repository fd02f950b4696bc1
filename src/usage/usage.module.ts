import { Module } from '@nestjs/common';
import { MessageQuota } from './message-quota';
import { MessageQuotaRepository } from './message-quota.repository';

/** The plan's monthly message count: taken by the widget's replies, reported by /verify and the tenant's account. */
@Module({ providers: [MessageQuotaRepository, MessageQuota], exports: [MessageQuota] })
export class UsageModule {}
