import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { AppError } from '../common/errors/app-error';
import type { ApiPrincipal, AppRequest } from '../common/http/request-context';
import type { Plan } from '../generated/prisma/enums';
import { PlanGuard } from './plan.guard';

class VerifyController {
  verify(): void {}
}

const principal = (plan: Plan): ApiPrincipal => ({
  kind: 'apiKey',
  scopes: ['bots:read'],
  tenant: { id: '0190b6a0-0000-7000-8000-000000000001', name: 'Acme', slug: 'acme', plan },
  apiKey: { id: '0190b6a0-0000-7000-8000-000000000002', type: 'secret', scopes: ['bots:read'] },
});

function contextFor(principalOrNone: ApiPrincipal | undefined): ExecutionContext {
  const request = { principal: principalOrNone } as AppRequest;
  return new ExecutionContextHost([request, {}, () => undefined], VerifyController, VerifyController.prototype.verify);
}

describe('PlanGuard', () => {
  const guard = new PlanGuard(new Reflector());

  it.each(['pro', 'business', 'enterprise'] as const)('lets a key of a %s tenant through', (plan) => {
    expect(guard.canActivate(contextFor(principal(plan)))).toBe(true);
  });

  it('refuses a key of a free tenant with 403 PLAN_UPGRADE_REQUIRED', () => {
    let error: unknown;
    try {
      guard.canActivate(contextFor(principal('free')));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'PLAN_UPGRADE_REQUIRED', status: 403, message: 'API access requires the Pro plan or higher.' });
  });

  it('does nothing on routes without an API-key principal (public and admin routes)', () => {
    expect(guard.canActivate(contextFor(undefined))).toBe(true);
  });
});
