import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AccessCheck } from '../common/access/access-rule.guard';
import type { AppRequest } from '../common/http/request-context';
import { PlanUpgradeRequiredError } from '../common/errors/app-error';
import { PLANS } from './plans';

/**
 * A capability the plan grants (API_DECISIONS part 4): on Pro or higher only, for users as for keys.
 * `what` starts the refusal's message: "Creating webhook endpoints requires the Pro plan or higher."
 */
export const PaidFeature = Reflector.createDecorator<string>();

/**
 * API access needs Pro or higher: a valid key of a tenant on Free gets 403 PLAN_UPGRADE_REQUIRED.
 * A user of a Free tenant uses the dashboard, but not a route marked @PaidFeature (same answer).
 */
@Injectable()
export class PlanGuard implements AccessCheck {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    if (!principal || PLANS[principal.tenant.plan].apiAccess) return true;
    if (principal.kind === 'apiKey') throw new PlanUpgradeRequiredError();
    const feature = this.reflector.getAllAndOverride(PaidFeature, [context.getHandler(), context.getClass()]);
    if (feature) throw new PlanUpgradeRequiredError(`${feature} requires the Pro plan or higher.`);
    return true;
  }
}
