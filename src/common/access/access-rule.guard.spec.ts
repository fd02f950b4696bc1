import { ExecutionContext, Logger, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { AppError } from '../errors/app-error';
import { AccessRuleGuard } from './access-rule.guard';
import { AdminOnly, Public, RequireScopes } from './access.decorators';

class MixedController {
  @Public() health(): void {}
  @AdminOnly() createTenant(): void {}
  @RequireScopes() verify(): void {}
  @RequireScopes('bots:read') listBots(): void {}
  forgotten(): void {}
}

@AdminOnly()
class AdminController {
  list(): void {}
}

const contextFor = (controller: Type, handler: (...args: never[]) => unknown): ExecutionContext =>
  new ExecutionContextHost([{}, {}, () => undefined], controller, handler);

describe('AccessRuleGuard', () => {
  const guard = new AccessRuleGuard(new Reflector());
  let logged: jest.SpyInstance;

  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it.each([
    ['public', MixedController.prototype.health],
    ['admin', MixedController.prototype.createTenant],
    ['API-key without scopes', MixedController.prototype.verify],
    ['API-key with scopes', MixedController.prototype.listBots],
  ])('lets a route with a %s rule through', (_, handler) => {
    expect(guard.canActivate(contextFor(MixedController, handler))).toBe(true);
    expect(logged).not.toHaveBeenCalled();
  });

  it('takes a rule declared on the class', () => {
    expect(guard.canActivate(contextFor(AdminController, AdminController.prototype.list))).toBe(true);
  });

  it('refuses a route without a rule with 403 and logs which route it is', () => {
    let error: unknown;
    try {
      guard.canActivate(contextFor(MixedController, MixedController.prototype.forgotten));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, message: 'This route is not available.' });
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0][0])).toContain('MixedController.forgotten');
  });
});
