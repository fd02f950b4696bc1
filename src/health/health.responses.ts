import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

export class LivenessResponse {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

/** One readiness check: `lifecycle`, `database` and, with Redis configured, `redis`. */
export class HealthIndicatorStatus {
  @ApiProperty({ enum: ['up', 'down'] })
  status: 'up' | 'down';

  @ApiPropertyOptional({ enum: ['postgres', 'embedded'], description: 'The database kind (database check).' })
  kind?: 'postgres' | 'embedded';

  @ApiPropertyOptional({ description: 'Why the check is down.' })
  message?: string;
}

const checks = (description: string) => ({ type: 'object', description, additionalProperties: { $ref: getSchemaPath(HealthIndicatorStatus) } }) as const;

/** The @nestjs/terminus health-check result. */
export class ReadinessResponse {
  @ApiProperty({ enum: ['ok', 'error', 'shutting_down'] })
  status: 'ok' | 'error' | 'shutting_down';

  @ApiPropertyOptional(checks('The checks that are up.'))
  info?: Record<string, HealthIndicatorStatus>;

  @ApiPropertyOptional(checks('The checks that are down.'))
  error?: Record<string, HealthIndicatorStatus>;

  @ApiProperty(checks('Every check.'))
  details: Record<string, HealthIndicatorStatus>;
}
