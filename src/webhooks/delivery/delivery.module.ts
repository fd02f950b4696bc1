import { DynamicModule, Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks.module';
import { DeliveryQueueRepository } from './delivery-queue.repository';
import { DEFAULT_DELIVERY_OPTIONS, DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options';
import { DeliveryWorker } from './delivery-worker';

/** Background delivery of webhooks: started with the app, stopped by its shutdown (WEBHOOK_WORKER). */
@Module({})
export class WebhookDeliveryModule {
  static forRoot(options: Partial<DeliveryOptions> = {}): DynamicModule {
    return {
      module: WebhookDeliveryModule,
      // The management API's deletions reach this process's worker (EndpointDeletions).
      imports: [WebhooksModule],
      providers: [{ provide: DELIVERY_OPTIONS, useValue: { ...DEFAULT_DELIVERY_OPTIONS, ...options } }, DeliveryQueueRepository, DeliveryWorker],
      exports: [DeliveryWorker],
    };
  }
}
