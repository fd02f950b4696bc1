import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import { toPage } from '../common/paging/pagination';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiIdParam, ApiNoBody, ApiV1Endpoint, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { CreateWebhookDto, UpdateWebhookDto } from './dto/create-webhook.dto';
import { ListDeliveriesQueryDto } from './dto/list-deliveries.query';
import {
  DeliveryEnvelope,
  DeliveryListResponse,
  toDeliveryResponse,
  toWebhookResponse,
  WebhookEnvelope,
  WebhookListResponse,
  WebhookWithSecretResponse,
} from './webhook.mapper';
import { WebhooksService } from './webhooks.service';
import { PaidFeature } from '../tenancy/plan.guard';
import { IdOf } from '../common/validation/id.pipe';

@Controller('api/v1/webhooks')
@ApiTags('Webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @PaidFeature('Creating webhook endpoints')
  @ApiV1Endpoint({
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint',
    description:
      'The answer carries the signing secret, once. At most 20 endpoints per tenant. Needs the Pro plan or higher, for users too (403 `PLAN_UPGRADE_REQUIRED`).',
    status: 201,
    type: WebhookWithSecretResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_LIMIT_REACHED],
  })
  @RequireScopes(Scope.WebhooksManage)
  async create(@Principal() { tenant }: ApiPrincipal, @Body() body: CreateWebhookDto, @CurrentActor() actor: Actor): Promise<WebhookWithSecretResponse> {
    const { webhook, secret } = await this.webhooks.createWebhook(tenant.id, body, actor);
    return { webhook: toWebhookResponse(webhook), secret };
  }

  @Get()
  @ApiV1Endpoint({ operationId: 'listWebhooks', summary: 'List the webhook endpoints, oldest first', type: WebhookListResponse })
  @RequireScopes(Scope.WebhooksManage)
  async list(@Principal() { tenant }: ApiPrincipal): Promise<WebhookListResponse> {
    return { webhooks: (await this.webhooks.listWebhooks(tenant.id)).map((webhook) => toWebhookResponse(webhook)) };
  }

  @Get(':id')
  @ApiV1Endpoint({ operationId: 'getWebhook', summary: 'Get a webhook endpoint', type: WebhookEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Webhook')) id: string): Promise<WebhookEnvelope> {
    return { webhook: toWebhookResponse(await this.webhooks.getWebhook(tenant.id, id)) };
  }

  @Patch(':id')
  @ApiV1Endpoint({
    operationId: 'updateWebhook',
    summary: 'Change, enable or disable a webhook endpoint',
    type: WebhookEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  async update(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Webhook')) id: string,
    @Body() body: UpdateWebhookDto,
    @CurrentActor() actor: Actor,
  ): Promise<WebhookEnvelope> {
    return { webhook: toWebhookResponse(await this.webhooks.updateWebhook(tenant.id, id, body, actor)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiV1Endpoint({
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint and its pending deliveries',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  async delete(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Webhook')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.webhooks.deleteWebhook(tenant.id, id, actor);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiV1Endpoint({
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret',
    description: 'The answer carries the new secret, once; the previous one keeps signing too for 24 hours.',
    type: WebhookWithSecretResponse,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  @ApiNoBody()
  async rotateSecret(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Webhook')) id: string,
    @CurrentActor() actor: Actor,
  ): Promise<WebhookWithSecretResponse> {
    const { webhook, secret } = await this.webhooks.rotateSecret(tenant.id, id, actor);
    return { webhook: toWebhookResponse(webhook), secret };
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiV1Endpoint({
    operationId: 'sendWebhookTest',
    summary: 'Send a webhook.test event to this endpoint',
    status: 202,
    type: DeliveryEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  @ApiNoBody()
  async test(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Webhook')) id: string): Promise<DeliveryEnvelope> {
    return { delivery: toDeliveryResponse(await this.webhooks.sendTest(tenant.id, id)) };
  }

  @Get(':id/deliveries')
  @ApiV1Endpoint({
    operationId: 'listWebhookDeliveries',
    summary: 'List the deliveries of an endpoint, newest first',
    type: DeliveryListResponse,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  async deliveries(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Webhook')) id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<DeliveryListResponse> {
    const { deliveries, pagination } = await this.webhooks.listDeliveries(tenant.id, id, query.status, toPage(query));
    return { deliveries: deliveries.map(toDeliveryResponse), pagination };
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiV1Endpoint({
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt a delivery again now',
    description: 'Not while an attempt is in flight: 409 `DELIVERY_IN_FLIGHT`.',
    status: 202,
    type: DeliveryEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.DELIVERY_IN_FLIGHT, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.WebhooksManage)
  @ApiIdParam('id', 'Webhook')
  @ApiIdParam('deliveryId', 'Delivery')
  @ApiNoBody()
  async retry(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Webhook')) id: string,
    @Param('deliveryId', IdOf('Delivery')) deliveryId: string,
  ): Promise<DeliveryEnvelope> {
    return { delivery: toDeliveryResponse(await this.webhooks.retryDelivery(tenant.id, id, deliveryId)) };
  }
}
