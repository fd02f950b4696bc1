import { ApiProperty } from '@nestjs/swagger';
import { Plan, PLAN_NAMES } from './plans';
import type { TenantRow } from './tenants.repository';

export class TenantResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' })
  slug: string;

  @ApiProperty({ enum: PLAN_NAMES, enumName: 'Plan' })
  plan: Plan;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class TenantEnvelope {
  @ApiProperty({ type: TenantResponse })
  tenant: TenantResponse;
}

export function toTenantResponse(row: TenantRow): TenantResponse {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.plan,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
