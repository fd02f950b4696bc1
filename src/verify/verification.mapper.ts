import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiPrincipal } from '../common/http/request-context';
import { Plan, PLAN_NAMES, PLANS } from '../tenancy/plans';

export class VerifiedTenant {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  slug: string;
}

export class VerifiedPlan {
  @ApiProperty({ enum: PLAN_NAMES, enumName: 'Plan' })
  name: Plan;

  @ApiProperty({ type: 'integer', minimum: 0 })
  botsLimit: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages per calendar month.' })
  messagesLimit: number;
}

export class VerifiedUsage {
  @ApiProperty({ type: 'integer', minimum: 0, description: "The bot's replies this calendar month (UTC), counted against `plan.messagesLimit`." })
  messagesThisMonth: number;
}

/** The answer of GET /api/v1/verify (SPEC 2.3). */
export class VerificationResponse {
  @ApiProperty({ type: Boolean, enum: [true], description: 'Always true: an invalid key gets 401 instead.' })
  valid: true;

  @ApiProperty({ type: VerifiedTenant })
  tenant: VerifiedTenant;

  @ApiProperty({ type: VerifiedPlan })
  plan: VerifiedPlan;

  @ApiPropertyOptional({ type: VerifiedUsage, description: 'Secret keys only: a public key is on web pages, for anyone to read.' })
  usage?: VerifiedUsage;
}

/** `messagesThisMonth` undefined (a public key's request): the answer has no `usage`. */
export function toVerificationResponse(principal: ApiPrincipal, messagesThisMonth: number | undefined): VerificationResponse {
  const plan = PLANS[principal.tenant.plan];
  return {
    valid: true,
    tenant: { id: principal.tenant.id, name: principal.tenant.name, slug: principal.tenant.slug },
    plan: { name: plan.name, botsLimit: plan.botsLimit, messagesLimit: plan.messagesLimit },
    ...(messagesThisMonth === undefined ? {} : { usage: { messagesThisMonth } }),
  };
}
