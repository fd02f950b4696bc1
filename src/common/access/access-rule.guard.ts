import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import { accessRuleOf, callerKindOf, CallerKind } from './access.decorators';

/** One check a caller passes (a key, a token, a plan, a limit); it throws the error the caller gets. */
export interface AccessCheck {
  canActivate(context: ExecutionContext): boolean | Promise<boolean>;
}

/** The checks of each kind of caller, in the order the contract gives them. */
export type CallerChecks = Readonly<Record<CallerKind, readonly AccessCheck[]>>;

export const CALLER_CHECKS = Symbol('CALLER_CHECKS');

/**
 * The one global access guard: it reads the route's access rule and runs the checks of that kind
 * of caller, in order (src/caller-checks.ts lists them). Deny by default: a route that declares no
 * rule answers 403 to everyone.
 */
@Injectable()
export class AccessRuleGuard implements CanActivate {
  private readonly logger = new Logger(AccessRuleGuard.name);

  constructor(
    private readonly reflector: Reflector,
    @Inject(CALLER_CHECKS) private readonly checks: CallerChecks,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = accessRuleOf(this.reflector, context);
    if (!rule) {
      this.logger.error(`${context.getClass().name}.${context.getHandler().name} declares no access rule; refused`);
      throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, 'This route is not available.');
    }
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    for (const check of this.checks[callerKindOf(rule, request)]) {
      // Checks throw the answer the caller gets; one that merely says no is a refusal all the same.
      if (!(await check.canActivate(context))) throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, 'This route is not available.');
    }
    return true;
  }
}
