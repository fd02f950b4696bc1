import { ApiProperty } from '@nestjs/swagger';
import { PLAN_NAMES, PLANS, type Plan } from '../../tenancy/plans';
import type { TenantRow } from '../../tenancy/tenants.repository';

export class TenantLimits {
  @ApiProperty({ description: 'Bots the plan allows.' })
  botsLimit: number;

  @ApiProperty({ description: 'Widget replies a calendar month (UTC).' })
  messagesLimit: number;

  @ApiProperty({ description: "API requests an hour, shared by the tenant's keys." })
  requestsPerHour: number;

  @ApiProperty({ description: 'Whether secret API keys may be created (Pro and higher).' })
  apiAccess: boolean;

  @ApiProperty({ description: "Characters of knowledge the plan holds, all the tenant's documents together; a write beyond is 403 `PLAN_LIMIT_REACHED`." })
  knowledgeCharactersLimit: number;
}

export class TenantUsage {
  @ApiProperty({ description: 'Widget replies stored this calendar month (UTC).' })
  messagesThisMonth: number;

  @ApiProperty()
  botCount: number;

  @ApiProperty({
    description:
      "API requests made with the tenant's secret keys in the current hour (hours start on the clock's hour, UTC): the count `limits.requestsPerHour` limits. Users' requests are not in it.",
  })
  requestsThisHour: number;

  @ApiProperty({ description: "Characters in the tenant's knowledge documents: the count `limits.knowledgeCharactersLimit` limits." })
  knowledgeCharacters: number;
}

export class TenantAccountResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  slug: string;

  @ApiProperty({ enum: PLAN_NAMES, enumName: 'Plan' })
  plan: Plan;

  @ApiProperty({ type: TenantLimits })
  limits: TenantLimits;

  @ApiProperty({ type: TenantUsage })
  usage: TenantUsage;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class TenantAccountEnvelope {
  @ApiProperty({ type: TenantAccountResponse })
  tenant: TenantAccountResponse;
}

export function toTenantAccountResponse(row: TenantRow, usage: TenantUsage): TenantAccountResponse {
  const plan = PLANS[row.plan];
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    plan: row.plan,
    limits: {
      botsLimit: plan.botsLimit,
      messagesLimit: plan.messagesLimit,
      requestsPerHour: plan.requestsPerHour,
      apiAccess: plan.apiAccess,
      knowledgeCharactersLimit: plan.knowledgeCharactersLimit,
    },
    usage: {
      messagesThisMonth: usage.messagesThisMonth,
      botCount: usage.botCount,
      requestsThisHour: usage.requestsThisHour,
      knowledgeCharacters: usage.knowledgeCharacters,
    },
    createdAt: row.createdAt.toISOString(),
  };
}
