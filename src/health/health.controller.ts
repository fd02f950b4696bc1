import { Controller, Get, HttpStatus, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { ReadinessIndicators } from './readiness.indicators';

/** Probes for load balancers and orchestrators: plain HTTP allowed, no key. */
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: ReadinessIndicators,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
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
