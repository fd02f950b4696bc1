import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { EndpointDeletions } from './endpoint-deletions';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** The management API of webhooks (webhooks:manage); delivery is WebhookDeliveryModule's. */
@Module({
  imports: [TenancyModule],
  controllers: [WebhooksController],
  providers: [WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhooksService, EndpointDeletions],
  exports: [EndpointDeletions],
})
export class WebhooksModule {}
