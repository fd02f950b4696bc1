import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../common/access/access-rule.guard';
import type { AppRequest } from '../common/http/request-context';
import { PlanUpgradeRequiredError } from '../common/errors/app-error';
import { PLANS } from './plans';

/** API access needs Pro or higher: a valid key of a tenant on Free gets 403 PLAN_UPGRADE_REQUIRED. */
@Injectable()
export class PlanGuard implements AccessCheck {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    if (principal && !PLANS[principal.tenant.plan].apiAccess) throw new PlanUpgradeRequiredError();
    return true;
  }
}
