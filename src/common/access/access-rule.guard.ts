import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import { accessRuleOf } from './access.decorators';

/** Deny by default: a route that declares no access rule answers 403 to everyone. */
@Injectable()
export class AccessRuleGuard implements CanActivate {
  private readonly logger = new Logger(AccessRuleGuard.name);

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (accessRuleOf(this.reflector, context)) return true;
    this.logger.error(`${context.getClass().name}.${context.getHandler().name} declares no access rule; refused`);
    throw new AppError(ErrorCode.INSUFFICIENT_SCOPE, 'This route is not available.');
  }
}
