import { Controller, Get, HttpStatus, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ApiExtraModels, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { ApiPublicEndpoint, headerRef } from '../openapi/openapi.decorators';
import { HealthIndicatorStatus, LivenessResponse, ReadinessResponse } from './health.responses';
import { ReadinessIndicators } from './readiness.indicators';

/** Probes for load balancers and orchestrators: plain HTTP allowed, no key. */
@Controller('health')
@Public()
@ApiTags('Operations')
@ApiExtraModels(HealthIndicatorStatus)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: ReadinessIndicators,
  ) {}

  @Get('live')
  @ApiPublicEndpoint({
    operationId: 'getLiveness',
    summary: 'Liveness probe: the process is up',
    description: 'Plain HTTP is accepted.',
    type: LivenessResponse,
  })
  live(): LivenessResponse {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiPublicEndpoint({
    operationId: 'getReadiness',
    summary: 'Readiness probe: not shutting down, the database (and Redis, when configured) answer',
    description: 'Plain HTTP is accepted. 503 with the same shape when a check fails.',
    type: ReadinessResponse,
  })
  @ApiResponse({
    status: 503,
    description: 'Not ready: a check failed or the instance is shutting down.',
    type: ReadinessResponse,
    headers: { 'X-Request-Id': headerRef('X-Request-Id') },
  })
  async ready(@Res({ passthrough: true }) response: Response): Promise<HealthCheckResult> {
    try {
      return await this.health.check(this.indicators.all());
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      response.status(HttpStatus.SERVICE_UNAVAILABLE);
      return error.getResponse() as HealthCheckResult;
    }
  }
}
